package query

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzParse feeds arbitrary bytes to the filter, projection and sort
// parsers and matches any parsed filter against a fixed document. None of
// them may panic.
func FuzzParse(f *testing.F) {
	seeds := []string{
		`{"a": 1}`, `{"a": {"$gt": 1, "$lt": 5}}`, `{"$or": [{"a": 1}, {"b.c": {"$in": [1, null]}}]}`,
		`{"a": {"$elemMatch": {"b": {"$size": 2}}}}`, `{"a": {"$all": [{"$elemMatch": {"$gt": 1}}]}}`,
		`{"a": {"$regex": "^x", "$options": "i"}}`, `{"a": {"$not": {"$type": ["int", "string"]}}}`,
		`{"a": {"$bitsAnySet": [1, 2]}, "b": {"$mod": [3, 1]}}`, `{"$expr": {"$eq": ["$a", "$b"]}}`,
		`{"a.0.b": {"$exists": false}}`, `{"a": {"$slice": [1, 2]}}`, `{"a.$": 1}`,
		`{"$jsonSchema": {"required": ["a"], "properties": {"a": {"bsonType": "array", "items": {"minimum": 1}}}}}`,
		`{"$jsonSchema": {"patternProperties": {"^s": {"maxLength": 2}}, "additionalProperties": false, "dependencies": {"b": ["a"]}}}`,
		`{"$jsonSchema": {"oneOf": [{"type": "object"}, {"not": {"enum": [1]}}], "items": [{}], "additionalItems": {"uniqueItems": true}}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(doc(f, s)))
	}
	target := doc(f, `{"_id": 1, "a": [1, {"b": [2, 3]}, [4]], "b": {"c": "x"}, "s": "str"}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := bsoncore.Document(data)
		if flt, err := Parse(d); err == nil {
			if !flt.Match(target) {
				_ = flt.FailureDetails(target)
			}
			flt.MatchPositional(target)
			_, _ = UpsertSeed(d)
		}
		if p, err := ParseProjection(d); err == nil {
			_, _ = p.Apply(target, 0)
		}
		if s, err := ParseSort(d); err == nil {
			s.Compare(target, target)
		}
	})
}
