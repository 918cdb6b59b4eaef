package indexkey

import (
	"bytes"
	"testing"

	"github.com/lodedb/lode/internal/catalog"
)

// TestFlatKey: for a plain index of top-level fields and a document
// where none of them is an array, FlatKey makes the key, type bits and
// first field's length Keys makes, whatever the fields' order, types,
// directions and absence; for any other index or document it declines.
func TestFlatKey(t *testing.T) {
	index := func(pattern string, spec catalog.IndexSpec) *catalog.Index { return testIndex(t, pattern, spec) }
	docs := []string{
		`{"_id": 1, "a": 5, "b": "x", "c": 2.5}`,
		`{"c": {"$date": "2026-11-30T12:00:00Z"}, "b": {"$numberLong": "-7"}, "a": {"$numberDecimal": "7.00"}}`,
		`{"a": -0.0, "b": null, "c": true}`,
		`{"b": {"x": [1, 2], "y": 1}, "a": {"$oid": "65a1b2c3d4e5f60718293a4b"}}`,
		`{"a": 1, "a": 2, "b": "first b", "b": "second b"}`,
		`{"z": 1}`,
		`{}`,
		`{"a": "", "b": {"$binary": {"base64": "AQID", "subType": "04"}}, "c": {"$minKey": 1}}`,
		`{"a": {"$timestamp": {"t": 5, "i": 1}}, "b": {"$regularExpression": {"pattern": "^x", "options": "i"}}, "c": 7.0}`,
	}
	var g Generator
	for _, pattern := range []string{`{"a": 1}`, `{"b": -1}`, `{"a": 1, "b": 1}`, `{"c": -1, "a": 1}`, `{"b": 1, "z": -1, "a": 1}`, `{"_id": 1}`} {
		ix := index(pattern, catalog.IndexSpec{})
		for _, doc := range docs {
			d := extJSON(t, doc)
			keys, paths, skip, err := g.Keys(ix, d)
			if err != nil || skip || len(keys) != 1 || len(paths) != 0 {
				t.Fatalf("%s %s: Keys gave %d keys, paths %v, skip %v, %v", pattern, doc, len(keys), paths, skip, err)
			}
			want, wantTB, wantHead := string(keys[0]), string(g.TypeBits(0)), g.HeadLen(0)
			ks, tb, head, ok := g.FlatKey(ix, d)
			if !ok {
				t.Fatalf("%s %s: FlatKey declined", pattern, doc)
			}
			if string(ks) != want || string(tb) != wantTB || head != wantHead {
				t.Fatalf("%s %s: FlatKey gave %x, type bits %x, head %d; Keys gave %x, %x, %d", pattern, doc, ks, tb, head, want, wantTB, wantHead)
			}
		}
	}
	for _, tc := range []struct {
		name string
		ix   *catalog.Index
		doc  string
	}{
		{"dotted path", index(`{"a.b": 1}`, catalog.IndexSpec{}), `{"a": {"b": 1}}`},
		{"sparse", index(`{"a": 1}`, catalog.IndexSpec{Sparse: true}), `{"a": 1}`},
		{"partial", index(`{"a": 1}`, catalog.IndexSpec{PartialFilterExpression: extJSON(t, `{"a": {"$gt": 1}}`)}), `{"a": 2}`},
		{"collation", index(`{"a": 1}`, catalog.IndexSpec{Collation: extJSON(t, `{"locale": "fr"}`)}), `{"a": "x"}`},
		{"2dsphere", index(`{"loc": "2dsphere"}`, catalog.IndexSpec{}), `{"loc": {"type": "Point", "coordinates": [1, 2]}}`},
		{"an array", index(`{"a": 1, "b": 1}`, catalog.IndexSpec{}), `{"a": 1, "b": [1, 2]}`},
		{"nine fields", index(`{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1}`, catalog.IndexSpec{}), `{"a": 1}`},
	} {
		before := append([]byte(nil), g.buf...)
		if _, _, _, ok := g.FlatKey(tc.ix, extJSON(t, tc.doc)); ok {
			t.Errorf("%s: FlatKey did not decline", tc.name)
		}
		if !bytes.Equal(g.buf, before) {
			t.Errorf("%s: FlatKey declined after writing", tc.name)
		}
	}
}
