package plan

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// CoverableProjection reports whether a find projection could be answered
// from index keys alone, and which top-level fields it needs: an inclusion
// of plain top-level fields ({a: 1, b: true}), where _id is needed unless
// excluded ({_id: 0}). Dotted paths, computed fields, $slice, $elemMatch
// and positional projections are not coverable.
func CoverableProjection(spec bsoncore.Document) ([]string, bool) {
	elems, err := spec.Elements()
	if err != nil || len(elems) == 0 {
		return nil, false
	}
	var fields []string
	id := true
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		if strings.ContainsAny(k, ".$") {
			return nil, false
		}
		var include bool
		switch {
		case v.Type == bsoncore.TypeBoolean:
			include = v.Boolean()
		case bsonutil.IsNumber(v.Type):
			include = bsonutil.AsFloat64(v) != 0
		default:
			return nil, false
		}
		if k == "_id" {
			id = include
			continue
		}
		if !include {
			return nil, false // an exclusion projection needs the document
		}
		fields = append(fields, k)
	}
	if len(fields) == 0 {
		return nil, false
	}
	if id {
		fields = append(fields, "_id")
	}
	return fields, true
}

// coversFields reports whether ix's keys can supply every field of a
// covered projection: each is an index field whose bounds exclude null
// and undefined (a missing field is indexed as null, so a null key could
// not tell a missing field from a null one).
func coversFields(ix *Index, bounds []FieldBounds, fields []string) bool {
	for _, f := range fields {
		i := ix.FieldIndex(f)
		if i < 0 || ix.Fields[i].Hashed || bounds[i].OIL.IsFull() || !excludesNull(bounds[i].OIL) {
			return false
		}
	}
	return true
}
