package bsonutil

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestLookupFieldAgreesWithBsoncore(t *testing.T) {
	doc, err := bson.Marshal(bson.D{
		{Key: "d", Value: 1.5}, {Key: "s", Value: "str"}, {Key: "o", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "a", Value: bson.A{1, "two"}},
		{Key: "bin", Value: bson.Binary{Subtype: 0, Data: []byte{1, 2}}}, {Key: "oid", Value: bson.NewObjectID()},
		{Key: "b", Value: true}, {Key: "dt", Value: bson.DateTime(7)}, {Key: "n", Value: nil}, {Key: "re", Value: bson.Regex{Pattern: "a.c", Options: "i"}},
		{Key: "i", Value: int32(3)}, {Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}, {Key: "l", Value: int64(4)}, {Key: "dec", Value: bson.NewDecimal128(1, 2)},
		{Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}}, {Key: "ab", Value: 1}, {Key: "a.b", Value: 2}, {Key: "", Value: 3},
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

func TestFirstInt(t *testing.T) {
	inner := bsoncore.NewDocumentBuilder().AppendString("stage", "IXSCAN").AppendInt32("keysExamined", 7).Build()
	arr := bsoncore.NewArrayBuilder().AppendDocument(inner).Build()
	doc := bsoncore.NewDocumentBuilder().
		AppendString("keysExamined", "not a number").
		AppendArray("stages", arr).
		AppendInt64("keysExamined", 9).
		AppendDouble("n", 2).
		Build()
	for _, c := range []struct {
		key  string
		want int64
	}{
		{"keysExamined", 7}, // depth first: the array's before the later top-level field
		{"n", 2},
		{"absent", -1},
	} {
		if got := FirstInt(doc, c.key); got != c.want {
			t.Errorf("FirstInt(%q) = %d, want %d", c.key, got, c.want)
		}
	}
}
