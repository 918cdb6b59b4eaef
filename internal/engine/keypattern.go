package engine

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// keyField is one field of an index key pattern.
type keyField struct {
	path  string
	parts []string
	// prefixEnd[k] is the length of the path prefix made of the first k
	// parts, so f.path[:f.prefixEnd[k]] names the array met after k parts
	// without building a string.
	prefixEnd []int
	desc      bool
	// text marks _fts, the term field of a text index.
	text bool
	// geo is "2dsphere" for a geo field (geokeys.go).
	geo string
}

// parseKeyPattern validates a key pattern and splits its fields.
func parseKeyPattern(key bsoncore.Document) ([]keyField, error) {
	elems, err := key.Elements()
	if err != nil {
		return nil, errs.New(errs.FailedToParse, "invalid index key pattern: %v", err)
	}
	if len(elems) == 0 {
		return nil, errs.New(errs.CannotCreateIndex, "Index keys cannot be an empty object.")
	}
	fields := make([]keyField, 0, len(elems))
	for _, e := range elems {
		name := e.Key()
		v := e.Value()
		f := keyField{path: name, parts: strings.Split(name, ".")}
		switch {
		case bsonutil.IsNumber(v.Type):
			n := bsonutil.AsFloat64(v)
			if n == 0 {
				return nil, errs.New(errs.CannotCreateIndex, "Values in the index key pattern can't be all zero or empty: %s", name)
			}
			f.desc = n < 0
		case v.Type == bsoncore.TypeString:
			switch v.StringValue() {
			case "text":
				if name != "_fts" {
					return nil, errs.New(errs.CannotCreateIndex, "text index key pattern not in stored form: %s", name)
				}
				f.text = true
			case "2dsphere", "2d":
				f.geo = v.StringValue() // geokeys.go
			case "hashed":
				// MongoDB's index type that Lode does not build.
				return nil, errs.New(errs.NotImplemented, "Index type '%s' is not supported by Lode", v.StringValue())
			}
			if !f.text && f.geo == "" {
				return nil, errs.New(errs.CannotCreateIndex, "Unknown index plugin '%s'", v.StringValue())
			}
		default:
			return nil, errs.New(errs.CannotCreateIndex, "Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.", bsonutil.TypeName(v.Type))
		}
		f.prefixEnd = make([]int, len(f.parts)+1)
		for k, p := range f.parts {
			if p == "" {
				return nil, errs.New(errs.CannotCreateIndex, "Index keys cannot contain an empty field.")
			}
			f.prefixEnd[k+1] = f.prefixEnd[k] + len(p)
			if k > 0 {
				f.prefixEnd[k+1]++ // the dot
			}
		}
		fields = append(fields, f)
	}
	if err := checkGeoPattern(fields); err != nil {
		return nil, err
	}
	return fields, nil
}
