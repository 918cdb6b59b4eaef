package aggregation_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestHitsPerDayParallel runs the event log's pipeline through the driver
// over enough events for a parallel $group (a collection scan split into
// ranges, the date parts folded into the group and broken down once a
// day) on days either side of 1970, and checks every group against counts
// made here: with a range covering every event (the {time: 1} index
// shows it, so the scan does not test each document), a range covering
// part of them, and the covering range again once documents outside it
// (no time, a string time, a later date) are there.
func TestHitsPerDayParallel(t *testing.T) {
	ldb, _ := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := ldb.Client().Database("hits").Collection("events")
	start := time.Date(1969, 12, 30, 0, 0, 0, 0, time.UTC)
	const n, paths = 30000, 20
	step := 3 * 24 * time.Hour / n
	var docs []any
	for i := 0; i < n; i++ {
		docs = append(docs, bson.D{{Key: "time", Value: start.Add(time.Duration(i) * step)},
			{Key: "host", Value: fmt.Sprintf("h%d", i%7)}, {Key: "path", Value: fmt.Sprintf("/p%02d", (i*7919)%paths)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "time", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	want := func(from, to time.Time) []string {
		counts := map[string]int{}
		for i := 0; i < n; i++ {
			tm := start.Add(time.Duration(i) * step)
			if tm.Before(from) || !tm.Before(to) {
				continue
			}
			counts[fmt.Sprintf("%s %d-%d-%d", fmt.Sprintf("/p%02d", (i*7919)%paths), tm.Year(), tm.Month(), tm.Day())]++
		}
		var out []string
		for k, c := range counts {
			out = append(out, fmt.Sprintf("%s %d", k, c))
		}
		sort.Strings(out)
		return out
	}
	got := func(from, to time.Time) []string {
		cur, err := coll.Aggregate(ctx, hitsPerDayPipeline(from, to))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for cur.Next(ctx) {
			var g struct {
				ID struct {
					P       string
					Y, M, D int32
				} `bson:"_id"`
				Hits int32
			}
			if err := cur.Decode(&g); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d-%d-%d %d", g.ID.P, g.ID.Y, g.ID.M, g.ID.D, g.Hits))
		}
		if err := cur.Err(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(out)
		return out
	}
	check := func(name string, from, to time.Time) {
		t.Helper()
		g, w := got(from, to), want(from, to)
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("%s: %d groups\n%v\nwant %d\n%v", name, len(g), g, len(w), w)
		}
	}
	all, end := start.Add(-time.Hour), start.Add(4*24*time.Hour)
	check("covering range", all, end)
	check("part", start.Add(12*time.Hour), start.Add(50*time.Hour))
	if _, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "path", Value: "/p00"}},
		bson.D{{Key: "time", Value: "1970-01-01"}, {Key: "path", Value: "/p00"}},
		bson.D{{Key: "time", Value: end}, {Key: "path", Value: "/p00"}},
	}); err != nil {
		t.Fatal(err)
	}
	check("covering range with documents outside it", all, end)
}
