package queryshape

import (
	"hash/maphash"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func doc(t *testing.T, js string) bsoncore.Document {
	t.Helper()
	var d bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(js), false, &d); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return bsoncore.Document(d)
}

func ext(d bsoncore.Document) string {
	b, _ := bson.MarshalExtJSON(bson.Raw(d), false, false)
	return string(b)
}

func TestFilterShape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 5}`, `{"a":{"$eq":"?number"}}`},
		{`{"a": "x", "b": {"$gt": {"$date": "2024-01-01T00:00:00Z"}}}`, `{"a":{"$eq":"?string"},"b":{"$gt":"?date"}}`},
		{`{"a": {"$in": [1, 2.5]}}`, `{"a":{"$in":"?array<?number>"}}`},
		{`{"a": {"$in": [1, "x"]}}`, `{"a":{"$in":"?array<>"}}`},
		{`{"$or": [{"a": null}, {"b": true}]}`, `{"$or":[{"a":{"$eq":"?null"}},{"b":{"$eq":"?bool"}}]}`},
		{`{"_id": {"$oid": "650000000000000000000000"}}`, `{"_id":{"$eq":"?objectId"}}`},
		{`{"m": {"k": 1}}`, `{"m":{"$eq":"?object"}}`},
		{`{"a": {"$elemMatch": {"b": 1}}}`, `{"a":{"$elemMatch":{"b":{"$eq":"?number"}}}}`},
		{`{"a": {"$all": [1, 2]}}`, `{"a":{"$all":"?array<?number>"}}`},
		{`{"m": {"$all": [{"$elemMatch": {"k": "x", "v": 1}}, {"$elemMatch": {"k": "y"}}]}}`,
			`{"m":{"$all":[{"$elemMatch":{"k":{"$eq":"?string"},"v":{"$eq":"?number"}}},{"$elemMatch":{"k":{"$eq":"?string"}}}]}}`},
		{`{"$expr": {"$gt": ["$a", 3]}}`, `{"$expr":{"$gt":["$a","?number"]}}`},
		{`{"a": {"$regex": "^x", "$options": "i"}}`, `{"a":{"$regex":"?string","$options":"i"}}`},
	} {
		if got := ext(Filter(doc(t, c.in))); got != c.want {
			t.Errorf("Filter(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestPipelineAndUpdateShape(t *testing.T) {
	st := []bsoncore.Document{doc(t, `{"$match": {"a": 1}}`), doc(t, `{"$sort": {"b": -1}}`), doc(t, `{"$limit": 5}`),
		doc(t, `{"$lookup": {"from": "o", "localField": "a", "foreignField": "b", "as": "j"}}`)}
	want := `{"0":{"$match":{"a":{"$eq":"?number"}}},"1":{"$sort":{"b":-1}},"2":{"$limit":"?number"},"3":{"$lookup":{"from":"o","localField":"a","foreignField":"b","as":"j"}}}`
	if got := ext(bsoncore.Document(Pipeline(st))); got != want {
		t.Errorf("Pipeline = %s", got)
	}
	u := Update(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, `{"$set": {"s": "run", "n": 2}}`)})
	if got := ext(u.Document()); got != `{"$set":{"s":"?string","n":"?number"}}` {
		t.Errorf("Update = %s", got)
	}
}

// TestStructureFingerprint checks that statements differing only in
// their values write the same structure, and different shapes do not.
func TestStructureFingerprint(t *testing.T) {
	seed := maphash.MakeSeed()
	fp := func(js string) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		WriteStructure(&h, doc(t, js))
		return h.Sum64()
	}
	same := [][2]string{
		{`{"a": 5, "b": "x"}`, `{"a": 7, "b": "y"}`},
		{`{"a": {"$gt": 1}}`, `{"a": {"$gt": 2}}`},
		{`{"$expr": {"$eq": ["$a", 1]}}`, `{"$expr": {"$eq": ["$a", 9]}}`},
	}
	for _, p := range same {
		if fp(p[0]) != fp(p[1]) {
			t.Errorf("%s and %s differ", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`{"a": 5}`, `{"a": "5"}`},
		{`{"a": 5}`, `{"b": 5}`},
		{`{"$expr": {"$eq": ["$a", 1]}}`, `{"$expr": {"$eq": ["$b", 1]}}`},
		{`{"a": {"$regex": "x", "$options": "i"}}`, `{"a": {"$regex": "x", "$options": "m"}}`},
	}
	for _, p := range differ {
		if fp(p[0]) == fp(p[1]) {
			t.Errorf("%s and %s collide", p[0], p[1])
		}
		if ext(Filter(doc(t, p[0]))) == ext(Filter(doc(t, p[1]))) {
			t.Errorf("%s and %s have the same shape but were listed as different", p[0], p[1])
		}
	}
}

func TestHash(t *testing.T) {
	h := Hash(doc(t, `{"a": 1}`))
	if len(h) != 64 || h != Hash(doc(t, `{"a": 1}`)) || h == Hash(doc(t, `{"a": 2}`)) {
		t.Fatalf("Hash: %s", h)
	}
}
