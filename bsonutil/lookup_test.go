package bsonutil

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestLookupFieldAgreesWithBsoncore(t *testing.T) {
	doc, err := bson.Marshal(bson.D{
		{"d", 1.5}, {"s", "str"}, {"o", bson.D{{"x", 1}}}, {"a", bson.A{1, "two"}},
		{"bin", bson.Binary{Subtype: 0, Data: []byte{1, 2}}}, {"oid", bson.NewObjectID()},
		{"b", true}, {"dt", bson.DateTime(7)}, {"n", nil}, {"re", bson.Regex{Pattern: "a.c", Options: "i"}},
		{"i", int32(3)}, {"ts", bson.Timestamp{T: 1, I: 2}}, {"l", int64(4)}, {"dec", bson.NewDecimal128(1, 2)},
		{"min", bson.MinKey{}}, {"max", bson.MaxKey{}}, {"ab", 1}, {"a.b", 2}, {"", 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	elems, _ := bsoncore.Document(doc).Elements()
	for _, el := range elems {
		got, ok := LookupField(doc, el.Key())
		if !ok || got.Type != el.Value().Type || string(got.Data) != string(el.Value().Data) {
			t.Errorf("%q: got %v %v, want %v", el.Key(), got, ok, el.Value())
		}
	}
	for _, k := range []string{"x", "a.", "abc", "d\x00"} {
		if v, ok := LookupField(doc, k); ok {
			t.Errorf("%q: found %v", k, v)
		}
	}
	// Truncated or corrupt documents are not found, and never panic.
	for i := 0; i < len(doc); i++ {
		LookupField(doc[:i], "max")
	}
}
