package agg_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestParallelGroupOverIndexedRange runs the event-log pipeline ($match
// on a time range, $project, $group) with an index on the time field.
// When the range covers the collection the planner prefers a collection
// scan, so the $group runs in parallel over partitioned scans; a
// selective range keeps the index (and one goroutine). Both count right.
func TestParallelGroupOverIndexedRange(t *testing.T) {
	const n = 40000
	coll, stats := groupEvents(t, n)
	ctx := context.Background()
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "t", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(from, to time.Time) int {
		t.Helper()
		pipe := bson.A{
			bson.D{{Key: "$match", Value: bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: to}}}}}},
			bson.D{{Key: "$project", Value: bson.D{{Key: "p", Value: 1}, {Key: "d", Value: bson.D{{Key: "$dayOfMonth", Value: "$t"}}}}}},
			bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "p", Value: "$p"}, {Key: "d", Value: "$d"}}}, {Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		}
		cur, err := coll.Aggregate(ctx, pipe)
		if err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			Hits int32
		}
		if err := cur.All(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, r := range rows {
			total += int(r.Hits)
		}
		return total
	}
	before := stats.ParallelGroups.Load()
	if got := run(start, start.Add(n*time.Minute)); got != n {
		t.Fatalf("whole range: %d hits, want %d", got, n)
	}
	if stats.ParallelGroups.Load()-before != 1 {
		t.Fatalf("whole range: %d parallel $group runs, want 1 (a collection scan)", stats.ParallelGroups.Load()-before)
	}
	before = stats.ParallelGroups.Load()
	if got := run(start.Add(1000*time.Minute), start.Add(3000*time.Minute)); got != 2000 {
		t.Fatalf("selective range: %d hits, want 2000", got)
	}
	if stats.ParallelGroups.Load() != before {
		t.Fatal("selective range: the $group ran in parallel; want the index plan")
	}
}
