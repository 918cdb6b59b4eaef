package agg_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg/aggengine"
	"github.com/lodedb/lode/internal/params"
)

// The parallel $group tests run pipelines on the engine's catalog, not
// through the wire: what they check besides the results is that the
// $group did run in parallel and spilled (params.Stats.ParallelGroups and
// SpilledRuns), which no command reports. The results are compared as
// canonical extended JSON, as the driver would return them.

// groupColl is the collection the parallel $group tests load.
const groupColl = "events"

// groupEvents loads n events {_id: i, t: date, p: "p<i%50>", s: i%7}
// (one minute apart from 2020-01-01, so many days and two months) in
// insertion order, and returns the catalog with its engine's counters.
func groupEvents(t *testing.T, n int) (*aggengine.Catalog, *params.Stats) {
	t.Helper()
	cat := openCat(t)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var docs []bsoncore.Document
	for i := 0; i < n; i++ {
		docs = append(docs, bsoncore.NewDocumentBuilder().AppendInt32("_id", int32(i)).
			AppendDateTime("t", start.Add(time.Duration(i)*time.Minute).UnixMilli()).
			AppendString("p", fmt.Sprintf("p%d", i%50)).AppendInt32("s", int32(i%7)).Build())
		if len(docs) == 10000 || i == n-1 {
			if err := cat.Insert(context.Background(), testDB, groupColl, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	return cat, statsOf(cat)
}

// aggJS runs a pipeline given as JSON on the events collection and
// returns the documents as canonical extended JSON strings (numeric types
// visible).
func aggJS(t *testing.T, cat *aggengine.Catalog, pipeline string, o runOpts) ([]string, error) {
	t.Helper()
	docs, err := runPipeline(t, cat, groupColl, pipeline, o)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range docs {
		out = append(out, canonical(t, bson.Raw(d)))
	}
	return out, nil
}

// TestParallelGroup runs $group over 60,000 documents (a collection scan
// split across goroutines) with a $project folded into it, and checks
// every result against values computed here.
func TestParallelGroup(t *testing.T) {
	const n = 60000
	cat, stats := groupEvents(t, n)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
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
	docs, err := runPipeline(t, cat, groupColl, `[
		{"$match": {}},
		{"$project": {"p": 1, "y": {"$year": "$t"}, "m": {"$month": "$t"}, "d": {"$dayOfMonth": "$t"}}},
		{"$group": {"_id": {"p": "$p", "y": "$y", "m": "$m", "d": "$d"}, "hits": {"$sum": 1}}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID struct {
			P       string
			Y, M, D int32
		} `bson:"_id"`
		Hits int32
	}
	rows := make([]row, len(docs))
	for i, d := range docs {
		if err := bson.Unmarshal(d, &rows[i]); err != nil {
			t.Fatal(err)
		}
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
	got, err := aggJS(t, cat, `[
		{"$addFields": {"sq": {"$multiply": ["$s", "$s"]}}},
		{"$group": {"_id": "$s", "first": {"$first": "$_id"}, "last": {"$last": "$_id"},
			"n": {"$sum": 1}, "sq": {"$max": "$sq"}, "ids": {"$push": "$_id"}}},
		{"$project": {"first": 1, "last": 1, "n": 1, "sq": 1, "ordered": {"$eq": ["$ids", {"$sortArray": {"input": "$ids", "sortBy": 1}}]}}}]`, runOpts{})
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
	got, err = aggJS(t, cat, `[{"$project": {"_id": 0, "p": 1}}, {"$group": {"_id": "$_id", "n": {"$sum": 1}, "s": {"$sum": "$s"}}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, fmt.Sprintf(`[{"_id": null, "n": %d, "s": 0}]`, n))
	got, err = aggJS(t, cat, `[{"$unset": "s"}, {"$group": {"_id": null, "s": {"$sum": "$s"}, "ids": {"$sum": "$_id"}}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, fmt.Sprintf(`[{"_id": null, "s": 0, "ids": {"$numberInt": "%d"}}]`, int64(n)*(n-1)/2))

	// $$ROOT needs the rebuilt document: not folded, still right.
	got, err = aggJS(t, cat, `[{"$project": {"s": 1}}, {"$group": {"_id": null, "k": {"$max": {"$size": {"$objectToArray": "$$ROOT"}}}}}]`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	wantJS(t, got, `[{"_id": null, "k": 2}]`)

	// A computed field the group does not use still fails as in $project.
	_, err = aggJS(t, cat, `[{"$project": {"p": 1, "bad": {"$add": ["$p", 1]}}}, {"$group": {"_id": "$p"}}]`, runOpts{})
	wantCode(t, err, 16554)

	if stats.ParallelGroups.Load()-before < 5 {
		t.Fatalf("%d parallel $group runs, want every one of the scans", stats.ParallelGroups.Load()-before)
	}
}

// TestParallelGroupMemory checks the memory limit of a parallel $group
// counts every goroutine's table: without disk use it fails with 292,
// with it the spilled tables merge to the exact result. The limit is
// internalDocumentSourceGroupMaxMemoryBytes (test/aggregation's
// TestMemoryLimitWire sets it through setParameter).
func TestParallelGroupMemory(t *testing.T) {
	const n = 40000
	cat, stats := groupEvents(t, n)
	paramsOf(cat).GroupMaxBytes.Store(256 << 10)
	before, runs := stats.ParallelGroups.Load(), stats.SpilledRuns.Load()
	pipe := `[{"$group": {"_id": "$_id", "first": {"$first": "$p"}, "n": {"$sum": 1}}}]`
	_, err := aggJS(t, cat, pipe, runOpts{allowDiskUse: false})
	wantCode(t, err, 292)
	got, err := aggJS(t, cat, pipe, runOpts{allowDiskUse: true})
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
	// About 8 MB of groups over a 256 KiB limit: a few dozen runs. A
	// finished range's table left in memory would make the ranges in
	// flight spill a few groups at a time (thousands of runs, and as many
	// open files).
	if n := stats.SpilledRuns.Load() - runs; n > 400 {
		t.Fatalf("%d spilled runs, want at most 400", n)
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

// canonical renders a document as canonical extended JSON.
func canonical(t *testing.T, raw bson.Raw) string {
	t.Helper()
	b, err := bson.MarshalExtJSON(raw, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantJS compares results with expected documents written in JSON,
// converted to canonical extended JSON: numeric types must match.
func wantJS(t *testing.T, got []string, want string) {
	t.Helper()
	wa := parseDocs(t, want)
	if len(got) != len(wa) {
		t.Fatalf("got %d documents, want %d\ngot:  %v\nwant: %s", len(got), len(wa), got, want)
	}
	for i, w := range wa {
		if c := canonical(t, bson.Raw(w)); c != got[i] {
			t.Fatalf("document %d\ngot:  %s\nwant: %s", i, got[i], c)
		}
	}
}
