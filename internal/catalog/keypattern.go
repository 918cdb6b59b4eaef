package catalog

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// KeyField is one field of an index key pattern.
type KeyField struct {
	// Path is the dotted field path and Parts its components.
	Path  string
	Parts []string
	// PrefixEnd[k] is the length of the path prefix made of the first k
	// parts, so f.Path[:f.PrefixEnd[k]] names the array met after k parts
	// without building a string.
	PrefixEnd []int
	// Desc marks a descending field.
	Desc bool
	// Text marks _fts, the term field of a text index.
	Text bool
	// Geo is "2dsphere" or "2d" for a geo field, "" otherwise.
	Geo string
	// Hashed marks the hashed field of a hashed index: its keys hold
	// the value's 64-bit hash (indexkey/hashed.go), not the value.
	Hashed bool
}

// ParseKeyPattern validates a key pattern and splits its fields.
func ParseKeyPattern(key bsoncore.Document) ([]KeyField, error) {
	elems, err := key.Elements()
	if err != nil {
		return nil, errs.New(errs.FailedToParse, "invalid index key pattern: %v", err)
	}
	if len(elems) == 0 {
		return nil, errs.New(errs.CannotCreateIndex, "Index keys cannot be an empty object.")
	}
	fields := make([]KeyField, 0, len(elems))
	for _, e := range elems {
		name := e.Key()
		v := e.Value()
		f := KeyField{Path: name, Parts: strings.Split(name, ".")}
		switch {
		case bsonutil.IsNumber(v.Type):
			n := bsonutil.AsFloat64(v)
			if n != n {
				return nil, errs.New(errs.CannotCreateIndex, "Values in the index key pattern cannot be NaN.")
			}
			if n == 0 {
				return nil, errs.New(errs.CannotCreateIndex, "Values in the index key pattern cannot be 0.")
			}
			f.Desc = n < 0
		case v.Type == bsoncore.TypeString:
			switch v.StringValue() {
			case "text":
				if name != "_fts" {
					return nil, errs.New(errs.CannotCreateIndex, "text index key pattern not in stored form: %s", name)
				}
				f.Text = true
			case "2dsphere", "2d":
				f.Geo = v.StringValue()
			case "hashed":
				f.Hashed = true
			}
			if !f.Text && f.Geo == "" && !f.Hashed {
				return nil, errs.New(errs.CannotCreateIndex, "Unknown index plugin '%s'", v.StringValue())
			}
		default:
			return nil, errs.New(errs.CannotCreateIndex, "Values in v:2 index key pattern cannot be of type %s. Only numbers > 0, numbers < 0, and strings are allowed.", bsonutil.TypeName(v.Type))
		}
		f.PrefixEnd = make([]int, len(f.Parts)+1)
		for k, p := range f.Parts {
			if p == "" {
				return nil, errs.New(errs.CannotCreateIndex, "Index keys cannot contain an empty field.")
			}
			f.PrefixEnd[k+1] = f.PrefixEnd[k] + len(p)
			if k > 0 {
				f.PrefixEnd[k+1]++ // the dot
			}
		}
		fields = append(fields, f)
	}
	if err := checkGeoPattern(fields); err != nil {
		return nil, err
	}
	if err := checkHashedPattern(key, fields); err != nil {
		return nil, err
	}
	return fields, nil
}

// checkHashedPattern refuses what mongod refuses in a hashed key
// pattern: a second hashed field (31303), or a hashed field beside a
// text or geo one (one index plugin per index).
func checkHashedPattern(key bsoncore.Document, fields []KeyField) error {
	hashed, plugin := 0, false
	for _, f := range fields {
		if f.Hashed {
			hashed++
		}
		if f.Text || f.Geo != "" {
			plugin = true
		}
	}
	if hashed == 0 {
		return nil
	}
	if plugin {
		return errs.New(errs.CannotCreateIndex, "Can't use more than one index plugin for a single index.")
	}
	if hashed > 1 {
		return errs.New(errs.Code(31303), "A maximum of one index field is allowed to be hashed but found %d for 'key' %s", hashed, key.String())
	}
	return nil
}

// checkGeoPattern refuses key patterns mongod refuses or Lode does not
// build: a descending geo field cannot exist (the value is a string), two
// 2dsphere fields are accepted by mongod but not by Lode.
func checkGeoPattern(fields []KeyField) error {
	n := 0
	for _, f := range fields {
		if f.Geo != "" {
			n++
		}
	}
	for i, f := range fields {
		if f.Geo == "2d" {
			if n > 1 {
				return errs.New(errs.Code(16800), "can't have 2 geo fields")
			}
			if i != 0 {
				return errs.New(errs.Code(16801), "2d has to be first in index")
			}
		}
	}
	if n > 1 {
		return errs.New(errs.NotImplemented, "2dsphere indexes with more than one geo field are not supported by Lode")
	}
	return nil
}
