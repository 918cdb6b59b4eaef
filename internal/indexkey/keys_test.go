package indexkey

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/catalog"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/keystring"
)

// extJSON parses a relaxed extended JSON document.
func extJSON(t testing.TB, s string) bsoncore.Document {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(s), false, &d); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	raw, err := bson.Marshal(d)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return raw
}

// renderKeyValue prints a decoded key value compactly.
func renderKeyValue(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeNull:
		return "null"
	case bsoncore.TypeUndefined:
		return "undefined"
	case bsoncore.TypeInt32:
		return fmt.Sprint(v.Int32())
	case bsoncore.TypeInt64:
		return fmt.Sprint(v.Int64())
	case bsoncore.TypeDouble:
		return fmt.Sprint(v.Double())
	case bsoncore.TypeString:
		return fmt.Sprintf("%q", v.StringValue())
	}
	return v.String()
}

// genKeys returns the keys doc produces for an index on pattern, each as
// "[v1, v2, ...]", and the multikey paths.
func genKeys(t *testing.T, pattern, doc string, sparse bool) (keys, paths []string, skip bool, err error) {
	t.Helper()
	ix, err := catalog.NewIndex(1, catalog.IndexSpec{Name: "x", Key: extJSON(t, pattern), Sparse: sparse})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]bool, len(ix.Fields))
	for i, f := range ix.Fields {
		dirs[i] = f.Desc
	}
	var g Generator
	ks, ps, skip, err := g.Keys(ix, extJSON(t, doc))
	if err != nil || skip {
		return nil, nil, skip, err
	}
	for i, k := range ks {
		vals, derr := keystring.Decode(k, dirs, g.tbs[i])
		if derr != nil {
			t.Fatal(derr)
		}
		parts := make([]string, len(vals))
		for j, v := range vals {
			parts[j] = renderKeyValue(v)
		}
		keys = append(keys, "["+strings.Join(parts, ", ")+"]")
	}
	paths = append([]string(nil), ps...)
	sort.Strings(paths)
	return keys, paths, false, nil
}

// TestIndexKeysElementWise checks key generation against MongoDB's
// documented multikey behaviour: one key per array element, fields through
// the same array combined positionally (jstests/index13.js: {a: [{b: 3},
// {c: 3}]} on {'a.b': 1, 'a.c': 1} generates {3, null} and {null, 3}), null
// for elements lacking the subfield, undefined for an empty array.
func TestIndexKeysElementWise(t *testing.T) {
	cases := []struct {
		name, pattern, doc string
		keys, paths        []string
	}{
		{"same array", `{"m.k": 1, "m.v": 1}`,
			`{"m": [{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": "c", "v": 3}]}`,
			[]string{`["a", 1]`, `["b", 2]`, `["c", 3]`}, []string{"m"}},
		{"descending", `{"m.k": 1, "m.v": -1}`,
			`{"m": [{"k": "a", "v": 1}, {"k": "a", "v": 2}]}`,
			[]string{`["a", 2]`, `["a", 1]`}, []string{"m"}},
		{"missing subfield is null", `{"a.b": 1, "a.c": 1}`,
			`{"a": [{"b": 3}, {"c": 3}]}`,
			[]string{`[null, 3]`, `[3, null]`}, []string{"a"}},
		{"scalar elements", `{"a.b": 1}`,
			`{"a": [1, {"b": 2}, {"c": 3}]}`,
			[]string{`[null]`, `[2]`}, []string{"a"}},
		{"nested arrays shared", `{"a.b.c": 1, "a.b.d": 1}`,
			`{"a": [{"b": [{"c": 1, "d": 2}, {"c": 3, "d": 4}]}, {"b": [{"c": 5, "d": 6}]}]}`,
			[]string{`[1, 2]`, `[3, 4]`, `[5, 6]`}, []string{"a", "a.b"}},
		{"outer and inner array", `{"a.x": 1, "a.b.c": 1}`,
			`{"a": [{"x": 1, "b": [{"c": 1}, {"c": 2}]}, {"x": 2, "b": [{"c": 3}]}]}`,
			[]string{`[1, 1]`, `[1, 2]`, `[2, 3]`}, []string{"a", "a.b"}},
		{"array field and its subfield", `{"a": 1, "a.b": 1}`,
			`{"a": [{"b": 1}, {"b": 2}]}`,
			[]string{`[{"b": {"$numberInt":"1"}}, 1]`, `[{"b": {"$numberInt":"2"}}, 2]`}, []string{"a"}},
		{"scalar field and array", `{"x": 1, "a": 1}`,
			`{"x": 1, "a": [3, 2, 3]}`,
			[]string{`[1, 2]`, `[1, 3]`}, []string{"a"}},
		{"array of arrays", `{"a": 1}`,
			`{"a": [[1, 2], 3]}`,
			[]string{`[3]`, `[[{"$numberInt":"1"},{"$numberInt":"2"}]]`}, []string{"a"}},
		{"empty leaf array", `{"a": 1, "b": 1}`,
			`{"a": [], "b": 1}`,
			[]string{`[undefined, 1]`}, []string{"a"}},
		{"empty array on the way", `{"a.b": 1, "a.c": 1}`,
			`{"a": []}`,
			[]string{`[null, null]`}, []string{"a"}},
		{"duplicates removed", `{"a.b": 1, "a.c": 1}`,
			`{"a": [{"b": 1, "c": 1}, {"b": 1, "c": 1}, {"b": 1}]}`,
			[]string{`[1, null]`, `[1, 1]`}, []string{"a"}},
		{"no arrays", `{"a.b": 1, "c": 1}`,
			`{"a": {"b": 1}}`,
			[]string{`[1, null]`}, nil},
		{"positional path", `{"a.0.b": 1, "a.c": 1}`,
			`{"a": [{"b": 1, "c": 2}, {"b": 5, "c": 3}]}`,
			[]string{`[1, 2]`, `[1, 3]`}, []string{"a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keys, paths, skip, err := genKeys(t, c.pattern, c.doc, false)
			if err != nil || skip {
				t.Fatalf("err=%v skip=%v", err, skip)
			}
			if fmt.Sprint(keys) != fmt.Sprint(c.keys) {
				t.Errorf("keys = %v, want %v", keys, c.keys)
			}
			if fmt.Sprint(paths) != fmt.Sprint(c.paths) {
				t.Errorf("multikey paths = %v, want %v", paths, c.paths)
			}
		})
	}
}

// TestIndexKeysSeedShape: 12 key/value pairs give 12 keys, not 144.
func TestIndexKeysSeedShape(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"metadata": [`)
	for i := 0; i < 12; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"key": "k%d", "value": "v%d"}`, i, i)
	}
	b.WriteString(`]}`)
	keys, paths, _, err := genKeys(t, `{"metadata.key": 1, "metadata.value": 1}`, b.String(), false)
	if err != nil || len(keys) != 12 || fmt.Sprint(paths) != "[metadata]" {
		t.Fatalf("keys=%d paths=%v err=%v", len(keys), paths, err)
	}
}

func TestIndexKeysParallelArrays(t *testing.T) {
	_, _, _, err := genKeys(t, `{"a": 1, "b": 1}`, `{"a": [1, 2], "b": [1, 2]}`, false)
	if e, ok := err.(*errs.Error); !ok || e.Code != errs.CannotIndexParallelArrays || e.Msg != "cannot index parallel arrays [b] [a]" {
		t.Fatalf("err = %v", err)
	}
	// Two different arrays met through one shared array are parallel too.
	_, _, _, err = genKeys(t, `{"a.b": 1, "a.c": 1}`, `{"a": [{"b": [1, 2], "c": [3, 4]}]}`, false)
	if e, ok := err.(*errs.Error); !ok || e.Code != errs.CannotIndexParallelArrays {
		t.Fatalf("err = %v", err)
	}
}

func TestIndexKeysSparse(t *testing.T) {
	_, _, skip, err := genKeys(t, `{"a.b": 1}`, `{"a": [{"c": 1}, 2]}`, true)
	if err != nil || !skip {
		t.Fatalf("skip=%v err=%v: a sparse index has no entry for a document lacking the field", skip, err)
	}
	keys, _, skip, err := genKeys(t, `{"a.b": 1, "c": 1}`, `{"a": [{"b": 1}, {"x": 1}], "c": 5}`, true)
	if err != nil || skip || fmt.Sprint(keys) != "[[null, 5] [1, 5]]" {
		t.Fatalf("keys=%v skip=%v err=%v", keys, skip, err)
	}
}

// TestKeyValuesElementWise: duplicate key errors report the values of the
// element that produced the key.
func TestKeyValuesElementWise(t *testing.T) {
	ix, err := catalog.NewIndex(1, catalog.IndexSpec{Name: "x", Key: extJSON(t, `{"m.k": 1, "m.v": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	doc := extJSON(t, `{"m": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]}`)
	var g Generator
	keys, _, _, _ := g.Keys(ix, doc)
	got := Values(ix, doc, keys[1]).String()
	if got != `{"m.k": "b","m.v": {"$numberInt":"2"}}` {
		t.Fatalf("Values = %s", got)
	}
}

func BenchmarkIndexKeysSeedShape(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"_id": 1, "metadata": [`)
	for i := 0; i < 12; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"key": "key%d", "value": "value-%d"}`, i, i)
	}
	sb.WriteString(`]}`)
	ix, _ := catalog.NewIndex(1, catalog.IndexSpec{Name: "x", Key: extJSON(b, `{"metadata.key": 1, "metadata.value": 1}`)})
	doc := extJSON(b, sb.String())
	var g Generator
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, _, err := g.Keys(ix, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// One generator serves indexes of every kind in turn (a write batch's is
// reused across commands): a geo index's keys, then an ordinary index's
// with as many fields.
func TestGeneratorGeoThenOrdinary(t *testing.T) {
	geo, err := catalog.NewIndex(1, catalog.IndexSpec{Name: "loc_2dsphere", Key: extJSON(t, `{"loc": "2dsphere"}`)})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := catalog.NewIndex(2, catalog.IndexSpec{Name: "a_1", Key: extJSON(t, `{"a": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	var g Generator
	doc := extJSON(t, `{"a": 5, "loc": {"type": "Point", "coordinates": [2.35, 48.85]}}`)
	if ks, _, _, err := g.Keys(geo, doc); err != nil || len(ks) == 0 {
		t.Fatalf("geo keys: %d, %v", len(ks), err)
	}
	g.Release()
	ks, _, _, err := g.Keys(plain, doc)
	if err != nil || len(ks) != 1 {
		t.Fatalf("keys after a geo index: %d, %v", len(ks), err)
	}
}

// BenchmarkIndexKeysEvent: the eventlog seed's indexes over one event,
// top-level scalar fields (the keys of a build and of single inserts).
func BenchmarkIndexKeysEvent(b *testing.B) {
	doc := extJSON(b, `{"_id": {"$oid": "65f0c0ffee0000000000abcd"}, "time": {"$date": "2026-11-01T10:00:00Z"}, "host": "host-17", "path": "/api/v1/items/123", "status": 200, "bytes": 5120, "ua": "client/1.0"}`)
	for _, spec := range []string{`{"_id": 1}`, `{"path": 1}`, `{"time": 1}`, `{"host": 1, "time": 1}`} {
		ix, err := catalog.NewIndex(1, catalog.IndexSpec{Name: "x", Key: extJSON(b, spec)})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(spec, func(b *testing.B) {
			var g Generator
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, _, _, err := g.Keys(ix, doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTopLevelFieldsInOnePass covers indexes whose fields are all
// top-level, whose keys one pass over the document finds (flat): the
// fields in another order than the document's, a name repeated in the
// document (its first element is the field, as mongod's getField finds),
// fields missing (null; a sparse index with none has no entry), and a
// field that meets an array (the walk's multikey keys).
func TestTopLevelFieldsInOnePass(t *testing.T) {
	cases := []struct {
		name, pattern, doc string
		sparse             bool
		keys               []string
		skip               bool
	}{
		{"fields in another order", `{"c": 1, "a": -1, "b": 1}`, `{"a": 1, "b": "x", "c": 2.5}`, false,
			[]string{`[2.5, 1, "x"]`}, false},
		{"repeated name: the first", `{"b": 1, "a": 1}`, `{"a": 1, "a": 3, "b": 2}`, false,
			[]string{`[2, 1]`}, false},
		{"missing fields are null", `{"a": 1, "z": 1, "b": 1}`, `{"b": 2, "c": 3}`, false,
			[]string{`[null, null, 2]`}, false},
		{"sparse, one field present", `{"a": 1, "b": 1}`, `{"b": 2}`, true,
			[]string{`[null, 2]`}, false},
		{"sparse, none present", `{"a": 1, "b": 1}`, `{"c": 2}`, true, nil, true},
		{"a field meets an array", `{"a": 1, "b": 1}`, `{"b": [2, 1], "a": 1}`, false,
			[]string{`[1, 1]`, `[1, 2]`}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			keys, _, skip, err := genKeys(t, c.pattern, c.doc, c.sparse)
			if err != nil {
				t.Fatal(err)
			}
			if skip != c.skip || strings.Join(keys, " ") != strings.Join(c.keys, " ") {
				t.Fatalf("keys %v (skip %v), want %v (skip %v)", keys, skip, c.keys, c.skip)
			}
		})
	}
}

// TestGeneratorAlternatesFlatIndexes: one generator serves two indexes of
// top-level fields in turn (a write batch's serves every index of the
// collection for each document); each index's keys are its own.
func TestGeneratorAlternatesFlatIndexes(t *testing.T) {
	ab, err := catalog.NewIndex(1, catalog.IndexSpec{Name: "ab", Key: extJSON(t, `{"a": 1, "b": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := catalog.NewIndex(2, catalog.IndexSpec{Name: "c", Key: extJSON(t, `{"c": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	doc := extJSON(t, `{"c": 3, "b": 2, "a": 1}`)
	want := func(vals ...int32) string {
		var k []byte
		for _, v := range vals {
			k = keystring.AppendValue(k, bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, v)}, false)
		}
		return string(k)
	}
	var g Generator
	for i := 0; i < 3; i++ {
		if ks, _, _, err := g.Keys(ab, doc); err != nil || len(ks) != 1 || string(ks[0]) != want(1, 2) {
			t.Fatalf("round %d: {a, b} keys %x, %v", i, ks, err)
		}
		if ks, _, _, err := g.Keys(c, doc); err != nil || len(ks) != 1 || string(ks[0]) != want(3) {
			t.Fatalf("round %d: {c} keys %x, %v", i, ks, err)
		}
	}
}

// BenchmarkIndexKeysRecent: the recent-n seed's {cat: 1, ts: -1} over
// one of its documents {_id, cat, ts} (an index build's keys).
func BenchmarkIndexKeysRecent(b *testing.B) {
	doc := extJSON(b, `{"_id": {"$numberLong": "123457"}, "cat": 42, "ts": {"$numberLong": "123456"}}`)
	ix, err := catalog.NewIndex(1, catalog.IndexSpec{Name: "x", Key: extJSON(b, `{"cat": 1, "ts": -1}`)})
	if err != nil {
		b.Fatal(err)
	}
	var g Generator
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, _, err := g.Keys(ix, doc); err != nil {
			b.Fatal(err)
		}
	}
}
