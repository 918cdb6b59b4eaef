package advise

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func raw(t *testing.T, d bson.D) bson.Raw {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func elemMatch(k string, v any) bson.D {
	return bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "key", Value: k}, {Key: "value", Value: v}}}}
}

// TestDerive: the ESR candidate of each seed's shape, and the shapes that
// get none.
func TestDerive(t *testing.T) {
	day := bson.D{{Key: "$gte", Value: bson.DateTime(0)}, {Key: "$lt", Value: bson.DateTime(86400000)}}
	for _, c := range []struct {
		name   string
		filter bson.D
		sort   bson.D
		want   string // key, or "" with skip
		skip   string
	}{
		{"recent $in + sort", bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{"a", "b", "c"}}}}},
			bson.D{{Key: "ts", Value: -1}}, "{ cat: 1, ts: -1 }", ""},
		{"recent count $in + range", bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{"a", "b"}}}},
			{Key: "ts", Value: bson.D{{Key: "$gt", Value: 5}}}}, nil, "{ cat: 1, ts: 1 }", ""},
		{"metadata $all of $elemMatch", bson.D{{Key: "metadata", Value: bson.D{{Key: "$all", Value: bson.A{
			elemMatch("File Name", "x.jpg"), elemMatch("MIME type", "image/jpeg")}}}}}, nil,
			"{ metadata.key: 1, metadata.value: 1 }", ""},
		{"host/day", bson.D{{Key: "host", Value: "h"}, {Key: "time", Value: day}}, bson.D{{Key: "time", Value: 1}},
			"{ host: 1, time: 1 }", ""},
		{"host/day without sort", bson.D{{Key: "time", Value: day}, {Key: "host", Value: "h"}}, nil,
			"{ host: 1, time: 1 }", ""},
		{"fifo", bson.D{{Key: "startTime", Value: nil}}, bson.D{{Key: "createdOn", Value: 1}},
			"{ startTime: 1, createdOn: 1 }", ""},
		{"priority", bson.D{{Key: "startTime", Value: nil}}, bson.D{{Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}},
			"{ startTime: 1, priority: -1, createdOn: 1 }", ""},
		{"$eq and one-value $in are equalities", bson.D{{Key: "r", Value: bson.D{{Key: "$gt", Value: 1}}},
			{Key: "a", Value: bson.D{{Key: "$eq", Value: 1}}}, {Key: "b", Value: bson.D{{Key: "$in", Value: bson.A{2}}}}},
			bson.D{{Key: "s", Value: -1}}, "{ a: 1, b: 1, s: -1, r: 1 }", ""},
		{"$and flattens", bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "b", Value: bson.D{{Key: "$lt", Value: 3}}}}}}},
			nil, "{ a: 1, b: 1 }", ""},
		{"elemMatch on values", bson.D{{Key: "scores", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "$gte", Value: 80}}}}}},
			nil, "{ scores: 1 }", ""},
		{"$in too wide for a merge sorts as a range", bson.D{{Key: "c", Value: bson.D{{Key: "$in", Value: wideIn()}}}},
			bson.D{{Key: "ts", Value: 1}}, "{ ts: 1, c: 1 }", ""},
		{"_id equality", bson.D{{Key: "_id", Value: 1}, {Key: "claim", Value: 2}}, nil, "", "equality on _id: served by the _id index"},
		{"$text", bson.D{{Key: "$text", Value: bson.D{{Key: "$search", Value: "x"}}}}, nil, "", "$text search: served by a text index"},
		{"$or", bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "a", Value: 1}}}}}, nil, "", "$or at the top level: not analysed"},
		{"geo", bson.D{{Key: "loc", Value: bson.D{{Key: "$near", Value: bson.A{0, 0}}}}}, nil, "", "geo query on loc: served by a geo index"},
		{"empty", bson.D{}, nil, "", "no indexable predicate or sort"},
		{"$meta sort", bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "s", Value: bson.D{{Key: "$meta", Value: "textScore"}}}}, "", "sort on s is not by value ($meta)"},
	} {
		cand, skip := derive(raw(t, c.filter), c.sort)
		if skip != c.skip {
			t.Errorf("%s: skip %q, want %q", c.name, skip, c.skip)
			continue
		}
		if c.want != "" && cand.key.String() != c.want {
			t.Errorf("%s: candidate %s, want %s", c.name, cand.key, c.want)
		}
	}
}

func wideIn() bson.A {
	a := bson.A{}
	for i := 0; i < maxMergeScans+1; i++ {
		a = append(a, i)
	}
	return a
}

// TestMerge: a candidate goes only when a kept one serves it (sort
// included); identical ones merge.
func TestMerge(t *testing.T) {
	mk := func(filter bson.D, sort bson.D) candidate {
		c, skip := derive(raw(t, filter), sort)
		if skip != "" {
			t.Fatal(skip)
		}
		return c
	}
	in := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{"a", "b"}}}}}
	sorted := mk(in, bson.D{{Key: "ts", Value: -1}})
	counted := mk(append(in, bson.E{Key: "ts", Value: bson.D{{Key: "$gt", Value: 1}}}), nil)
	catOnly := mk(in, nil)
	fifo := mk(bson.D{{Key: "startTime", Value: nil}}, bson.D{{Key: "createdOn", Value: 1}})
	prio := mk(bson.D{{Key: "startTime", Value: nil}}, bson.D{{Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}})
	reversed := mk(in, bson.D{{Key: "ts", Value: 1}})
	byTS := mk(bson.D{{Key: "ts", Value: bson.D{{Key: "$gt", Value: 1}}}}, nil)
	got := mergeCandidates([]candidate{counted, catOnly, sorted, fifo, prio, reversed, sorted, byTS}, []int{0, 1, 2, 3, 4, 5, 6, 7})
	var keys []string
	for _, m := range got {
		keys = append(keys, m.key.String())
	}
	want := []string{"{ startTime: 1, priority: -1, createdOn: 1 }", "{ cat: 1, ts: -1 }", "{ startTime: 1, createdOn: 1 }", "{ ts: 1 }"}
	if len(keys) != len(want) {
		t.Fatalf("merged %q, want %q", keys, want)
	}
	for i := range want {
		if keys[i] != want[i] {
			t.Fatalf("merged %q, want %q", keys, want)
		}
	}
	// {cat: 1, ts: -1} (the sort's, kept before the count's range) serves
	// the count, the cat-only shape and both sorts (one a backward scan).
	if n := len(got[1].shapes); n != 5 {
		t.Errorf("{cat: 1, ts: -1} serves %d shapes, want 5", n)
	}
	if serves(Key{{"ts", 1}, {"cat", 1}}, sorted) {
		t.Error("{ts: 1, cat: 1} serves the $in sort shape")
	}
	if serves(Key{{"startTime", 1}, {"priority", -1}, {"createdOn", 1}}, fifo) {
		t.Error("the priority index serves the FIFO sort")
	}
	if !serves(Key{{"cat", 1}, {"ts", 1}, {"x", 1}}, sorted) {
		t.Error("a longer key with the same prefix does not serve the sort")
	}
	if serves(Key{{"cat", 1}, {"x", 1}, {"ts", -1}}, sorted) {
		t.Error("a key with a field between the equality and the sort serves the sort")
	}
}

// TestKeyJS: a key pattern prints as a JavaScript object mongosh
// accepts, every field that is not an identifier quoted.
func TestKeyJS(t *testing.T) {
	k := Key{{"a", 1}, {"metadata.key", -1}, {"_x$1", 1}, {"a-b", 1}, {"1st", 1}, {`q"t`, 1}, {"é", 1}}
	want := `{ a: 1, "metadata.key": -1, _x$1: 1, "a-b": 1, "1st": 1, "q\"t": 1, "é": 1 }`
	if got := k.JS(); got != want {
		t.Errorf("JS() = %s, want %s", got, want)
	}
	if got := durText(7*24*time.Hour + 3*time.Hour + 5*time.Minute); got != "7d3h5m" {
		t.Errorf("durText = %s", got)
	}
}
