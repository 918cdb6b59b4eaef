package agg_test

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// TestParallelGroupOverIndexedRange runs the event-log pipeline ($match
// on a time range, $project, $group) with an index on the time field.
// When the range covers the collection the planner prefers a collection
// scan, so the $group runs in parallel over partitioned scans; a
// selective range keeps the index (and one goroutine). Both count right.
func TestParallelGroupOverIndexedRange(t *testing.T) {
	const n = 40000
	cat, stats := groupEvents(t, n)
	if _, err := cat.E.CreateIndex(testDB, groupColl, engine.IndexSpec{Name: "t_1", Key: bsoncore.NewDocumentBuilder().AppendInt32("t", 1).Build()}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(from, to time.Time) int {
		t.Helper()
		date := func(tm time.Time) string { return `{"$date":"` + tm.Format(time.RFC3339Nano) + `"}` }
		pipe := fmt.Sprintf(`[
			{"$match": {"t": {"$gte": %s, "$lt": %s}}},
			{"$project": {"p": 1, "d": {"$dayOfMonth": "$t"}}},
			{"$group": {"_id": {"p": "$p", "d": "$d"}, "hits": {"$sum": 1}}}]`, date(from), date(to))
		docs, err := runPipeline(t, cat, groupColl, pipe, runOpts{})
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, d := range docs {
			var r struct {
				Hits int32
			}
			if err := bson.Unmarshal(d, &r); err != nil {
				t.Fatal(err)
			}
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
