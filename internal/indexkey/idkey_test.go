package indexkey

import (
	"bytes"
	"testing"

	"github.com/lodedb/lode/internal/catalog"
)

// TestAppendIDKey: on a plain _id index, for a document whose first field
// is _id, AppendIDKey makes the key and type bits Keys makes, after what
// dst held; for any other index or document it declines.
func TestAppendIDKey(t *testing.T) {
	index := func(pattern string, spec catalog.IndexSpec) *catalog.Index { return testIndex(t, pattern, spec) }
	id := index(`{"_id": 1}`, catalog.IndexSpec{Unique: true})
	var g Generator
	for _, doc := range []string{
		`{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"}, "a": 1}`,
		`{"_id": 7}`,
		`{"_id": {"$numberLong": "7"}}`,
		`{"_id": 7.5}`,
		`{"_id": 7.0}`,
		`{"_id": {"$numberDecimal": "7.00"}}`,
		`{"_id": -0.0}`,
		`{"_id": "text", "b": [1, 2]}`,
		`{"_id": {"x": 1, "y": [1, 2]}}`,
		`{"_id": null}`,
		`{"_id": true}`,
		`{"_id": {"$date": "2026-11-30T12:00:00Z"}}`,
		`{"_id": {"$binary": {"base64": "AQID", "subType": "04"}}}`,
		`{"_id": {"$minKey": 1}}`,
	} {
		d := extJSON(t, doc)
		keys, _, skip, err := g.Keys(id, d)
		if err != nil || skip || len(keys) != 1 {
			t.Fatalf("%s: Keys gave %d keys, skip %v, %v", doc, len(keys), skip, err)
		}
		prefix := []byte("before")
		out, end, ok := AppendIDKey(append([]byte(nil), prefix...), id, d)
		if !ok {
			t.Fatalf("%s: AppendIDKey declined", doc)
		}
		if !bytes.Equal(out[:len(prefix)], prefix) || !bytes.Equal(out[len(prefix):end], keys[0]) || !bytes.Equal(out[end:], g.TypeBits(0)) {
			t.Fatalf("%s: AppendIDKey gave key %x, type bits %x; Keys gave %x, %x", doc, out[len(prefix):end], out[end:], keys[0], g.TypeBits(0))
		}
	}
	plain := extJSON(t, `{"_id": 1, "a": "x"}`)
	for _, tc := range []struct {
		name string
		ix   *catalog.Index
		doc  string
	}{
		{"descending", index(`{"_id": -1}`, catalog.IndexSpec{}), `{"_id": 1}`},
		{"another field", index(`{"a": 1}`, catalog.IndexSpec{}), `{"a": 1}`},
		{"compound", index(`{"_id": 1, "a": 1}`, catalog.IndexSpec{}), `{"_id": 1, "a": 1}`},
		{"sparse", index(`{"_id": 1}`, catalog.IndexSpec{Sparse: true}), `{"_id": 1}`},
		{"partial", index(`{"_id": 1}`, catalog.IndexSpec{PartialFilterExpression: extJSON(t, `{"a": {"$gt": 1}}`)}), `{"_id": 1}`},
		{"collation", index(`{"_id": 1}`, catalog.IndexSpec{Collation: extJSON(t, `{"locale": "fr"}`)}), `{"_id": "a"}`},
		{"_id not first", id, `{"a": 1, "_id": 2}`},
		{"array _id", id, `{"_id": [1, 2]}`},
		{"empty document", id, `{}`},
	} {
		d := extJSON(t, tc.doc)
		if len(d) == 0 {
			d = plain
		}
		if out, _, ok := AppendIDKey([]byte("x"), tc.ix, d); ok || string(out) != "x" {
			t.Errorf("%s: AppendIDKey did not decline (ok %v, %q)", tc.name, ok, out)
		}
	}
}

// testIndex is the index of key pattern (extended JSON) and spec's other
// options.
func testIndex(t *testing.T, pattern string, spec catalog.IndexSpec) *catalog.Index {
	t.Helper()
	spec.Name, spec.Key = "x", extJSON(t, pattern)
	ix, err := catalog.NewIndex(1, spec)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
