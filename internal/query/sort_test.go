package query

import (
	"sort"
	"strings"
	"testing"
)

func sortIDs(t *testing.T, spec string, coll []string) string {
	t.Helper()
	s, err := ParseSort(doc(t, spec))
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	ds := docs(t, coll...)
	keys := make([]SortKey, len(ds))
	idx := make([]int, len(ds))
	for i, d := range ds {
		keys[i] = s.Key(d)
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.CompareKeys(keys[idx[a]], keys[idx[b]]) < 0 })
	var out []string
	for _, i := range idx {
		out = append(out, idString(ds[i].Lookup("_id")))
	}
	// Compare must agree with the keys
	for i := 1; i < len(idx); i++ {
		if s.Compare(ds[idx[i-1]], ds[idx[i]]) > 0 {
			t.Errorf("Compare disagrees with CompareKeys at %d", i)
		}
	}
	return strings.Join(out, ",")
}

func TestSortDocumented(t *testing.T) {
	// "Comparison/Sort Order": MinKey < Null < Numbers < Symbol, String <
	// Object < Array < BinData < ObjectId < Boolean < Date < Timestamp <
	// Regular Expression < MaxKey; missing sorts as null.
	mixed := []string{
		`{"_id": "maxkey", "a": {"$maxKey": 1}}`,
		`{"_id": "regex", "a": {"$regularExpression": {"pattern": "x", "options": ""}}}`,
		`{"_id": "ts", "a": {"$timestamp": {"t": 1, "i": 1}}}`,
		`{"_id": "date", "a": {"$date": "2020-01-01T00:00:00Z"}}`,
		`{"_id": "bool", "a": true}`,
		`{"_id": "oid", "a": {"$oid": "5f1d7b1e8c9d2b0001a1b2c3"}}`,
		`{"_id": "bin", "a": {"$binary": {"base64": "AA==", "subType": "00"}}}`,
		`{"_id": "obj", "a": {"x": 1}}`,
		`{"_id": "str", "a": "s"}`,
		`{"_id": "num", "a": 1}`,
		`{"_id": "null", "a": null}`,
		`{"_id": "minkey", "a": {"$minKey": 1}}`,
	}
	if got, want := sortIDs(t, `{"a": 1}`, mixed), `"minkey","null","num","str","obj","bin","oid","bool","date","ts","regex","maxkey"`; got != want {
		t.Errorf("mixed types: got %s want %s", got, want)
	}
	// "sort()": array fields sort by their smallest element ascending and
	// their largest descending.
	shoes := []string{`{"_id": "A", "sizes": [7, 11]}`, `{"_id": "B", "sizes": [8, 9, 10]}`}
	if got := sortIDs(t, `{"sizes": 1}`, shoes); got != `"A","B"` {
		t.Errorf("asc arrays: %s", got)
	}
	if got := sortIDs(t, `{"sizes": -1}`, shoes); got != `"A","B"` {
		t.Errorf("desc arrays: %s", got)
	}
	// empty array sorts before null and missing; missing equals null
	empties := []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": null}`, `{"_id": 3}`, `{"_id": 4, "a": []}`}
	if got := sortIDs(t, `{"a": 1}`, empties); got != `4,2,3,1` {
		t.Errorf("empty array: %s", got)
	}
	// compound keys, numbers compared across types, dotted paths through arrays
	comp := []string{
		`{"_id": 1, "c": "x", "n": 2.5}`,
		`{"_id": 2, "c": "x", "n": {"$numberLong": "3"}}`,
		`{"_id": 3, "c": "a", "n": 1}`,
		`{"_id": 4, "c": "x", "n": {"$numberDecimal": "2.4"}}`,
	}
	if got := sortIDs(t, `{"c": 1, "n": -1}`, comp); got != `3,2,1,4` {
		t.Errorf("compound: %s", got)
	}
	dotted := []string{`{"_id": 1, "a": [{"b": 5}, {"b": 1}]}`, `{"_id": 2, "a": {"b": 3}}`, `{"_id": 3, "a": [{"b": 4}, {"c": 1}]}`}
	if got := sortIDs(t, `{"a.b": 1}`, dotted); got != `3,1,2` {
		t.Errorf("dotted asc: %s", got)
	}
	if got := sortIDs(t, `{"a.b": -1}`, dotted); got != `1,3,2` {
		t.Errorf("dotted desc: %s", got)
	}
}

func TestSortParse(t *testing.T) {
	s, err := ParseSort(doc(t, `{"$natural": -1}`))
	if err != nil {
		t.Fatal(err)
	}
	if dir, ok := s.Natural(); !ok || dir != -1 {
		t.Errorf("natural = %d %v", dir, ok)
	}
	s, _ = ParseSort(doc(t, `{"a": 1.0, "b": {"$numberLong": "-1"}}`))
	if len(s.Fields) != 2 || s.Fields[0].Desc || !s.Fields[1].Desc {
		t.Errorf("fields %+v", s.Fields)
	}
	cases := []struct {
		spec string
		code int32
		msg  string
	}{
		{`{"a": 2}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
		{`{"a": "x"}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
		{`{"a": 0}`, 15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)"},
	}
	for _, c := range cases {
		_, err := ParseSort(doc(t, c.spec))
		checkErr(t, c.spec, err, c.code, c.msg)
	}
	sp, err := ParseSort(doc(t, `{"score": {"$meta": "textScore"}}`))
	if err != nil || !sp.HasMeta() || !sp.Fields[0].Desc {
		t.Errorf("textScore sort: %v %v, want a descending meta key", sp, err)
	}
	_, err = ParseSort(doc(t, `{"score": {"$meta": "bogus"}}`))
	checkErr(t, "bogus $meta sort", err, 31138, `Illegal $meta sort: score: {"$meta": "bogus"}`)
}

func TestUpsertSeed(t *testing.T) {
	cases := []struct {
		filter, want string
	}{
		{`{"a": 1}`, `{"a": 1}`},
		{`{"a": {"$eq": 1}, "b": {"$gt": 5}}`, `{"a": 1}`},
		{`{"b.c": 2, "_id": 7}`, `{"_id": 7, "b": {"c": 2}}`},
		{`{"b.c": 2, "b.d": 3}`, `{"b": {"c": 2, "d": 3}}`},
		{`{"$and": [{"x": 1}, {"y": {"$in": [2]}}], "z": {"$in": [1, 2]}}`, `{"x": 1, "y": 2}`},
		{`{"_id": "123_1", "count": {"$lt": 10}}`, `{"_id": "123_1"}`},
		{`{"a": {"b": 1}}`, `{"a": {"b": 1}}`},
	}
	for _, c := range cases {
		got, err := UpsertSeed(doc(t, c.filter))
		if err != nil {
			t.Errorf("%s: %v", c.filter, err)
			continue
		}
		if g, w := canon(t, got), canon(t, doc(t, c.want)); g != w {
			t.Errorf("%s: got %s want %s", c.filter, g, w)
		}
	}
	_, err := UpsertSeed(doc(t, `{"a": 1, "a.b": 2}`))
	checkErr(t, "prefix", err, 54, "cannot infer query fields to set, both paths 'a' and 'a.b' are matched")
	_, err = UpsertSeed(doc(t, `{"$and": [{"a": 1}, {"a": 2}]}`))
	checkErr(t, "twice", err, 54, "cannot infer query fields to set, path 'a' is matched twice")
}
