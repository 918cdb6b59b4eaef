package update

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FuzzParse feeds arbitrary bytes to Parse and applies what parses to a
// small document. Neither may panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"$set": {"a.b": 1}}`, `{"$inc": {"a": 1, "c.$": 2}}`, `{"$push": {"a": {"$each": [3, 1], "$sort": 1, "$slice": -1, "$position": 0}}}`,
		`{"$pull": {"a": {"$gte": 2}}}`, `{"$rename": {"a": "z"}}`, `{"$set": {"a.$[]": 0}}`, `{"x": 1}`,
		`{"$bit": {"b": {"and": 3}}}`, `{"$addToSet": {"a": {"$each": [1, 9]}}}`, `{"$pop": {"a": -1}}`,
		`{"$currentDate": {"d": {"$type": "timestamp"}}}`, `{"$mul": {"c.d": 2.5}}`, `{"$unset": {"a.1": 1}}`,
	} {
		f.Add([]byte(d(f, s)))
	}
	doc := d(f, `{"_id": 1, "a": [1, 2, 3], "b": 5, "c": {"d": [{"e": 1}]}}`)
	f.Fuzz(func(t *testing.T, spec []byte) {
		if bsoncore.Document(spec).Validate() != nil {
			return
		}
		u, err := Parse(spec, nil)
		if err != nil {
			return
		}
		out, _, err := u.Apply(doc, ApplyOptions{Pos: 1})
		if err == nil {
			if verr := out.Validate(); verr != nil {
				t.Fatalf("invalid result for %v: %v", bsoncore.Document(spec), verr)
			}
		}
		_, _, _ = u.Apply(doc, ApplyOptions{Pos: -1, Insert: true})
	})
}
