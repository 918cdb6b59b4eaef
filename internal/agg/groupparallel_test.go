package agg_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/params"
)

// groupEvents loads n events {_id: i, t: date, p: "p<i%50>", s: i%7}
// (one hour apart from 2020-01-01, so several days and two months) in
// insertion order, and returns the collection with its instance's
// counters.
func groupEvents(t *testing.T, n int) (*mongo.Collection, *params.Stats) {
	t.Helper()
	db, ps := openInstance(t, "par")
	coll := db.Collection("events")
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var docs []any
	for i := 0; i < n; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: start.Add(time.Duration(i) * time.Minute)},
			{Key: "p", Value: fmt.Sprintf("p%d", i%50)}, {Key: "s", Value: int32(i % 7)}})
		if len(docs) == 10000 || i == n-1 {
			if _, err := coll.InsertMany(context.Background(), docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	return coll, &ps.Stats
}

// TestParallelGroupWire runs $group over 60,000 documents (a collection
// scan split across goroutines) with a $project folded into it, through
// the driver, and checks every result against values computed here.
func TestParallelGroupWire(t *testing.T) {
	const n = 60000
	coll, stats := groupEvents(t, n)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.Background()
	before := stats.ParallelGroups.Load()

	// The seed 003 shape: $project date parts, $group on path and day.
	type pd struct {
		p    string
		m, d int
	}
	want := map[pd]int{}
	for i := 0; i < n; i++ {
		tm := start.Add(time.Duration(i) * time.Minute)
		want[pd{fmt.Sprintf("p%d", i%50), int(tm.Month()), tm.Day()}]++
	}
	cur, err := coll.Aggregate(ctx, ejson(t, `[
		{"$match": {}},
		{"$project": {"p": 1, "y": {"$year": "$t"}, "m": {"$month": "$t"}, "d": {"$dayOfMonth": "$t"}}},
		{"$group": {"_id": {"p": "$p", "y": "$y", "m": "$m", "d": "$d"}, "hits": {"$sum": 1}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		ID struct {
			P       string
			Y, M, D int32
		} `bson:"_id"`
		Hits int32
	}
	if err := cur.All(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d groups, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		k := pd{r.ID.P, int(r.ID.M), int(r.ID.D)}
		if r.ID.Y != 2020 || int(r.Hits) != want[k] {
			t.Fatalf("group %+v: %d hits, want %d", r.ID, r.Hits, want[k])
		}
	}

	// Natural order is kept across the parts: groups come out in order
	// of first appearance, $first/$last/$push see documents in _id order.
	got, err := aggJS(t, coll, `[
		{"$addFields": {"sq": {"$multiply": ["$s", "$s"]}}},
		{"$group": {"_id": "$s", "first": {"$first": "$_id"}, "last": {"$last": "$_id"},
			"n": {"$sum": 1}, "sq": {"$max": "$sq"}, "ids": {"$push": "$_id"}}},
		{"$project": {"first": 1, "last": 1, "n": 1, "sq": 1, "ordered": {"$eq": ["$ids", {"$sortArray": {"input": "$ids", "sortBy": 1}}]}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	var wantRows []string
	for s := 0; s < 7; s++ {
		last := (n-1)/7*7 + s
		if last >= n {
			last -= 7
		}
		cnt := (n-1-s)/7 + 1
		wantRows = append(wantRows, fmt.Sprintf(`{"_id":%d,"first":%d,"last":%d,"n":%d,"sq":%d,"ordered":true}`, s, s, last, cnt, s*s))
	}
	wantJS(t, got, "["+join(wantRows)+"]")

	// Fields the folded stage drops are missing; $unset too.
	got, err = aggJS(t, coll, `[{"$project": {"_id": 0, "p": 1}}, {"$group": {"_id": "$_id", "n": {"$sum": 1}, "s": {"$sum": "$s"}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, fmt.Sprintf(`[{"_id": null, "n": %d, "s": 0}]`, n))
	got, err = aggJS(t, coll, `[{"$unset": "s"}, {"$group": {"_id": null, "s": {"$sum": "$s"}, "ids": {"$sum": "$_id"}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, fmt.Sprintf(`[{"_id": null, "s": 0, "ids": {"$numberInt": "%d"}}]`, int64(n)*(n-1)/2))

	// $$ROOT needs the rebuilt document: not folded, still right.
	got, err = aggJS(t, coll, `[{"$project": {"s": 1}}, {"$group": {"_id": null, "k": {"$max": {"$size": {"$objectToArray": "$$ROOT"}}}}}]`)
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id": null, "k": 2}]`)

	// A computed field the group does not use still fails as in $project.
	_, err = aggJS(t, coll, `[{"$project": {"p": 1, "bad": {"$add": ["$p", 1]}}}, {"$group": {"_id": "$p"}}]`)
	wantServerCode(t, err, 16554)

	if stats.ParallelGroups.Load()-before < 5 {
		t.Fatalf("%d parallel $group runs, want every one of the scans", stats.ParallelGroups.Load()-before)
	}
}

// TestParallelGroupMemoryWire checks the memory limit of a parallel
// $group counts every goroutine's table: without disk use it fails with
// 292, with it the spilled tables merge to the exact result.
func TestParallelGroupMemoryWire(t *testing.T) {
	const n = 40000
	coll, stats := groupEvents(t, n)
	client := coll.Database().Client()
	setParam(t, client, "internalDocumentSourceGroupMaxMemoryBytes", int64(256<<10))
	before, runs := stats.ParallelGroups.Load(), stats.SpilledRuns.Load()
	pipe := `[{"$group": {"_id": "$_id", "first": {"$first": "$p"}, "n": {"$sum": 1}}}]`
	_, err := aggJS(t, coll, pipe, options.Aggregate().SetAllowDiskUse(false))
	wantServerCode(t, err, 292)
	got, err := aggJS(t, coll, pipe, options.Aggregate().SetAllowDiskUse(true))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d groups, want %d", len(got), n)
	}
	sort.Strings(got)
	for _, g := range got[:3] {
		var d struct {
			ID    int32 `bson:"_id"`
			First string
			N     int32
		}
		if err := bson.UnmarshalExtJSON([]byte(g), true, &d); err != nil {
			t.Fatal(err)
		}
		if d.N != 1 || d.First != fmt.Sprintf("p%d", d.ID%50) {
			t.Fatalf("group %s", g)
		}
	}
	if stats.ParallelGroups.Load()-before != 2 || stats.SpilledRuns.Load() == runs {
		t.Fatalf("parallel runs %d, spilled runs %d: want 2 parallel runs and spills", stats.ParallelGroups.Load()-before, stats.SpilledRuns.Load()-runs)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
