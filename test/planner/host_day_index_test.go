package planner_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// An event log (patterns/eventlog) over 10 hosts and 30 days, 100k events
// under LODE_ACCEPTANCE=1 and 30k otherwise. The host-and-day query
// examines exactly the keys it returns with {host:1, time:1}, and more
// with {time:1, host:1}.
func TestHostDayIndexChoice(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("events")
	n := testenv.Size(30_000, 100_000)
	base := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	step := 30 * 24 * time.Hour / time.Duration(n)
	rng := rand.New(rand.NewPCG(3, 3))
	testenv.InsertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "host", Value: fmt.Sprintf("127.0.0.%d", rng.IntN(10))},
			{Key: "time", Value: base.Add(time.Duration(i) * step)}, {Key: "path", Value: "/apache_pb.gif"}}
	})
	filter := bson.D{{Key: "host", Value: "127.0.0.1"}, {Key: "time", Value: bson.D{
		{Key: "$gte", Value: time.Date(2000, 10, 10, 0, 0, 0, 0, time.UTC)},
		{Key: "$lt", Value: time.Date(2000, 10, 11, 0, 0, 0, 0, time.UTC)}}}}
	dayTotal := testenv.Count(t, coll, bson.D{{Key: "time", Value: filter[1].Value}})
	want := testenv.Count(t, coll, filter)
	// About n/300 matches of n/30 that day.
	if want < int64(n/500) || dayTotal < int64(n*3/100) {
		t.Fatalf("data: %d matches, %d that day", want, dayTotal)
	}
	run := func(index string) (keys, returned int64) {
		res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "events"}, {Key: "filter", Value: filter}}, "executionStats")
		ix := testenv.FindStage(res.Lookup("queryPlanner", "winningPlan").Document(), "IXSCAN")
		if ix == nil || ix.Lookup("indexName").StringValue() != index {
			t.Fatalf("winning plan %v, want IXSCAN %s", res.Lookup("queryPlanner", "winningPlan"), index)
		}
		es := res.Lookup("executionStats").Document()
		return es.Lookup("totalKeysExamined").AsInt64(), es.Lookup("nReturned").AsInt64()
	}
	testenv.CreateIndex(t, coll, bson.D{{Key: "time", Value: 1}, {Key: "host", Value: 1}})
	keys, got := run("time_1_host_1")
	if got != want || keys != dayTotal {
		t.Errorf("time_1_host_1: nReturned %d keysExamined %d, want %d and %d", got, keys, want, dayTotal)
	}
	// With both indexes the trial picks host_1_time_1.
	testenv.CreateIndex(t, coll, bson.D{{Key: "host", Value: 1}, {Key: "time", Value: 1}})
	keys, got = run("host_1_time_1")
	if got != want || keys != want {
		t.Errorf("host_1_time_1: nReturned %d keysExamined %d, want both %d", got, keys, want)
	}
}
