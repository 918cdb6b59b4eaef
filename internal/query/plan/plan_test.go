package plan

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

func parse(t *testing.T, js string) (*query.Filter, bsoncore.Document) {
	t.Helper()
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(js), false, &d); err != nil {
		t.Fatal(err)
	}
	raw, _ := bson.Marshal(d)
	f, err := query.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return f, raw
}

func index(t *testing.T, name string, multikey []string, fields ...Field) *Index {
	t.Helper()
	b := bsoncore.NewDocumentBuilder()
	for _, f := range fields {
		if f.Desc {
			b.AppendInt32(f.Path, -1)
		} else {
			b.AppendInt32(f.Path, 1)
		}
	}
	return &Index{ID: 1, Name: name, KeyPattern: b.Build(), Fields: fields, Multikey: len(multikey) > 0, MultikeyPaths: multikey}
}

// boundsString renders a solution's IXSCAN bounds.
func boundsString(s *Solution) string {
	n := s.Root
	for n.Stage != StageIxScan && len(n.Children) > 0 {
		n = n.Children[0]
	}
	if n.Stage != StageIxScan {
		return n.Stage
	}
	var parts []string
	for _, f := range n.Bounds {
		parts = append(parts, f.Path+": "+strings.Join(IntervalStrings(f, n.Direction), " "))
	}
	return strings.Join(parts, "; ")
}

func TestBounds(t *testing.T) {
	a := index(t, "a_1", nil, Field{Path: "a"})
	aDesc := index(t, "a_-1", nil, Field{Path: "a", Desc: true})
	ab := index(t, "a_1_b_1", nil, Field{Path: "a"}, Field{Path: "b"})
	mk := index(t, "m.k_1_m.v_1", []string{"m"}, Field{Path: "m.k"}, Field{Path: "m.v"})
	amk := index(t, "a_1", []string{"a"}, Field{Path: "a"})
	// The "Multikey Index Bounds" examples of the MongoDB manual.
	q12 := index(t, "q1_q2", []string{"ratings", "ratings.scores"}, Field{Path: "ratings.scores.q1"}, Field{Path: "ratings.scores.q2"})
	q12top := index(t, "q1_q2_top", []string{"ratings"}, Field{Path: "ratings.scores.q1"}, Field{Path: "ratings.scores.q2"})
	survey := index(t, "item_score_by", []string{"ratings"}, Field{Path: "item"}, Field{Path: "ratings.score"}, Field{Path: "ratings.by"})
	abTop := index(t, "a.b_1", []string{"a"}, Field{Path: "a.b"})
	abBoth := index(t, "a.b_1_both", []string{"a", "a.b"}, Field{Path: "a.b"})
	cases := []struct {
		filter string
		ix     *Index
		want   string
	}{
		{`{"a": 5}`, a, "a: [5, 5]"},
		{`{"a": {"$gt": 5}}`, a, "a: (5, inf.0]"},
		{`{"a": {"$lte": "x"}}`, a, `a: ["", "x"]`},
		{`{"a": {"$gt": 5}}`, aDesc, "a: [inf.0, 5)"},
		{`{"a": {"$gt": 1, "$lt": 9}}`, a, "a: (1, 9)"},
		{`{"a": {"$gt": 1, "$lt": 9}}`, amk, "a: (1, inf.0]"},
		{`{"a": {"$elemMatch": {"$gt": 1, "$lt": 9}}}`, amk, "a: (1, 9)"},
		{`{"a": {"$in": [3, 1, null]}}`, a, "a: [undefined, undefined] [null, null] [1, 1] [3, 3]"},
		{`{"a": null}`, a, "a: [undefined, undefined] [null, null]"},
		{`{"a": {"$elemMatch": {"$eq": null}}}`, amk, "a: [undefined, undefined] [null, null]"},
		{`{"a": {"$regex": "^ab"}}`, a, `a: ["ab", "ac") [/^ab/, /^ab/]`},
		{`{"a": {"$regex": "^123_"}}`, a, "a: [\"123_\", \"123`\") [/^123_/, /^123_/]"},
		{`{"a": {"$date": "2020-01-01T00:00:00Z"}}`, a, "a: [new Date(1577836800000), new Date(1577836800000)]"},
		{`{"a": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}}`, a, "a: (new Date(1577836800000), new Date(9223372036854775807)]"},
		{`{"a": 1, "b": {"$gte": 2}}`, ab, "a: [1, 1]; b: [2, inf.0]"},
		{`{"b": 2}`, ab, "COLLSCAN"},
		{`{"m.k": "x", "m.v": 1}`, mk, `m.k: ["x", "x"]; m.v: [MinKey, MaxKey]`},
		{`{"m": {"$elemMatch": {"k": "x", "v": 1}}}`, mk, `m.k: ["x", "x"]; m.v: [1, 1]`},
		{`{"m": {"$all": [{"$elemMatch": {"k": "x", "v": 1}}, {"$elemMatch": {"k": "y", "v": 2}}]}}`, mk, `m.k: ["x", "x"]; m.v: [1, 1]`},
		{`{"a": {"$gt": {"$numberDouble": "NaN"}}}`, a, "a: "},
		{`{"ratings": {"$elemMatch": {"scores.q1": 2, "scores.q2": 8}}}`, q12, "ratings.scores.q1: [2, 2]; ratings.scores.q2: [MinKey, MaxKey]"},
		{`{"ratings.scores": {"$elemMatch": {"q1": 2, "q2": 8}}}`, q12, "ratings.scores.q1: [2, 2]; ratings.scores.q2: [8, 8]"},
		{`{"ratings": {"$elemMatch": {"scores.q1": 2, "scores.q2": 8}}}`, q12top, "ratings.scores.q1: [2, 2]; ratings.scores.q2: [8, 8]"},
		{`{"ratings.scores.q1": 2, "ratings.scores.q2": 8}`, q12top, "ratings.scores.q1: [2, 2]; ratings.scores.q2: [MinKey, MaxKey]"},
		{`{"item": "XYZ", "ratings.score": {"$lte": 5}, "ratings.by": "anon"}`, survey, `item: ["XYZ", "XYZ"]; ratings.score: [-inf.0, 5]; ratings.by: [MinKey, MaxKey]`},
		{`{"item": "XYZ", "ratings": {"$elemMatch": {"score": {"$lte": 5}, "by": "anon"}}}`, survey, `item: ["XYZ", "XYZ"]; ratings.score: [-inf.0, 5]; ratings.by: ["anon", "anon"]`},
		{`{"a": {"$elemMatch": {"b": {"$gt": 1, "$lt": 9}}}}`, abTop, "a.b: (1, 9)"},
		{`{"a": {"$elemMatch": {"b": {"$gt": 1, "$lt": 9}}}}`, abBoth, "a.b: (1, inf.0]"},
		{`{"a.b": {"$gt": 1, "$lt": 9}}`, abTop, "a.b: (1, inf.0]"},
	}
	for _, tc := range cases {
		f, raw := parse(t, tc.filter)
		sols, err := Plan(Params{NS: "db.c", Filter: f, FilterDoc: raw, Indexes: []*Index{tc.ix}, MaxScansToExplode: 200})
		if err != nil {
			t.Fatal(err)
		}
		if got := boundsString(sols[0]); got != tc.want {
			t.Errorf("%s on %s: bounds %q, want %q", tc.filter, tc.ix.Name, got, tc.want)
		}
	}
}

func TestSortProvision(t *testing.T) {
	catTS := index(t, "cat_1_ts_-1", nil, Field{Path: "cat"}, Field{Path: "ts", Desc: true})
	cases := []struct {
		filter, sort string
		explode      int
		want         string // root stage below FETCH, and blocking
	}{
		{`{"cat": 1}`, `{"ts": -1}`, 200, "IXSCAN forward"},
		{`{"cat": 1}`, `{"ts": 1}`, 200, "IXSCAN backward"},
		{`{"cat": {"$in": [1, 2, 3]}}`, `{"ts": -1}`, 200, "SORT_MERGE 3"},
		{`{"cat": {"$in": [1, 2, 3]}}`, `{"ts": -1}`, 0, "IXSCAN blocking"},
		{`{"cat": {"$in": [1, 2, 3]}}`, `{"ts": -1}`, 2, "IXSCAN blocking"},
		{`{"cat": {"$gt": 1}}`, `{"ts": -1}`, 200, "IXSCAN blocking"},
		{`{"cat": 1}`, `{"cat": 1, "ts": -1}`, 200, "IXSCAN forward"},
		{`{"cat": 1}`, `{"cat": -1, "ts": 1}`, 200, "IXSCAN backward"},
		{`{"cat": 1}`, `{"cat": 1, "ts": 1}`, 200, "IXSCAN blocking"},
	}
	for _, tc := range cases {
		f, raw := parse(t, tc.filter)
		var sd bson.D
		_ = bson.UnmarshalExtJSON([]byte(tc.sort), false, &sd)
		sraw, _ := bson.Marshal(sd)
		s, err := query.ParseSort(sraw)
		if err != nil {
			t.Fatal(err)
		}
		sols, err := Plan(Params{NS: "db.c", Filter: f, FilterDoc: raw, Sort: s, SortDoc: sraw, Indexes: []*Index{catTS}, MaxScansToExplode: tc.explode})
		if err != nil {
			t.Fatal(err)
		}
		n := sols[0].Root.Children[0]
		got := n.Stage
		if n.Stage == StageSortMerge {
			got += " " + string(rune('0'+len(n.Children)))
		} else if sols[0].BlockingSort {
			got += " blocking"
		} else if n.Direction < 0 {
			got += " backward"
		} else {
			got += " forward"
		}
		if got != tc.want {
			t.Errorf("%s sort %s explode %d: %s, want %s", tc.filter, tc.sort, tc.explode, got, tc.want)
		}
	}
}

func TestHint(t *testing.T) {
	a := index(t, "a_1", nil, Field{Path: "a"})
	f, raw := parse(t, `{"b": 1}`)
	hint := func(v bsoncore.Value) (*Solution, error) {
		sols, err := Plan(Params{NS: "db.c", Filter: f, FilterDoc: raw, Indexes: []*Index{a}, Hint: v})
		if err != nil {
			return nil, err
		}
		return sols[0], nil
	}
	s, err := hint(bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, "a_1")})
	if err != nil || s.Index != a {
		t.Fatalf("hint by name: %v %v", s, err)
	}
	s, err = hint(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: a.KeyPattern})
	if err != nil || s.Index != a {
		t.Fatalf("hint by key: %v %v", s, err)
	}
	_, err = hint(bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, "b_1")})
	if err == nil || !strings.Contains(err.Error(), "hint provided does not correspond to an existing index") {
		t.Fatalf("unknown hint: %v", err)
	}
}

func TestPrefixSuccessor(t *testing.T) {
	for in, want := range map[string]string{"123_": "123`", "a": "b", "a\xff": "b", "": ""} {
		if got := prefixSuccessor(in); got != want {
			t.Errorf("prefixSuccessor(%q) = %q, want %q", in, got, want)
		}
	}
}
