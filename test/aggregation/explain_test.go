package aggregation_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// hitsPerDayPipeline is the event log's "hits per path per day" pipeline over
// [start, end).
func hitsPerDayPipeline(start, end time.Time) bson.A {
	return bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: start}, {Key: "$lt", Value: end}}}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "path", Value: 1}, {Key: "year", Value: bson.D{{Key: "$year", Value: "$time"}}},
			{Key: "month", Value: bson.D{{Key: "$month", Value: "$time"}}}, {Key: "day", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}}}}},
		bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$year"}, {Key: "m", Value: "$month"}, {Key: "d", Value: "$day"}}},
			{Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
}

// rawKeys lists the field names of d.
func rawKeys(d bson.Raw) string {
	els, _ := d.Elements()
	var ks []string
	for _, e := range els {
		ks = append(ks, e.Key())
	}
	return strings.Join(ks, ",")
}

func rawInt(t *testing.T, d bson.Raw, path ...string) int64 {
	t.Helper()
	v, err := d.LookupErr(path...)
	if err != nil {
		t.Fatalf("no %v in %v", path, d)
	}
	n, ok := v.AsInt64OK()
	if !ok {
		t.Fatalf("%v is %v in %v", path, v.Type, d)
	}
	return n
}

// aggStages returns the stages of an aggregate explain.
func aggStages(t *testing.T, res bson.Raw) []bson.Raw {
	t.Helper()
	v, err := res.LookupErr("stages")
	if err != nil {
		t.Fatalf("no stages: %v", res)
	}
	vals, _ := v.Array().Values()
	out := make([]bson.Raw, len(vals))
	for i, x := range vals {
		out[i] = x.Document()
	}
	return out
}

// Explain of the hits-per-path-per-day aggregate at each verbosity, through the Go driver:
// the $cursor stage reports the query's executionStats (the documents the
// time index found), each later stage what it returned, in mongod 7.0's
// reply shape.
func TestExplainAggregateHitsPerDay(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("events")
	const n = 20000
	base := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	step := 30 * 24 * time.Hour / n
	rng := rand.New(rand.NewPCG(3, 4))
	testenv.InsertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "host", Value: fmt.Sprintf("127.0.0.%d", rng.IntN(10))},
			{Key: "time", Value: base.Add(time.Duration(i) * step)}, {Key: "path", Value: fmt.Sprintf("/p%d", rng.IntN(20))}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "time", Value: 1}})
	start, end := time.Date(2000, 10, 5, 0, 0, 0, 0, time.UTC), time.Date(2000, 10, 15, 0, 0, 0, 0, time.UTC)
	pipeline := hitsPerDayPipeline(start, end)
	matched := testenv.Count(t, coll, bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: start}, {Key: "$lt", Value: end}}}})
	cur, err := coll.Aggregate(testenv.Ctx(t), pipeline)
	if err != nil {
		t.Fatal(err)
	}
	var groups []bson.M
	if err := cur.All(testenv.Ctx(t), &groups); err != nil {
		t.Fatal(err)
	}
	if matched < 6000 || len(groups) != 200 {
		t.Fatalf("data: %d matched, %d groups", matched, len(groups))
	}
	cmd := bson.D{{Key: "aggregate", Value: "events"}, {Key: "pipeline", Value: pipeline}, {Key: "cursor", Value: bson.D{}}}

	for _, v := range []string{"executionStats", "allPlansExecution"} {
		res := testenv.Explain(t, db, cmd, v)
		if got := rawKeys(res); !strings.HasPrefix(got, "explainVersion,stages,serverInfo,serverParameters,command,") {
			t.Errorf("%s: reply fields %s", v, got)
		}
		if res.Lookup("explainVersion").StringValue() != "1" || res.Lookup("command", "aggregate").StringValue() != "events" {
			t.Errorf("%s: %v", v, res)
		}
		st := aggStages(t, res)
		if len(st) != 3 || rawKeys(st[0]) != "$cursor,nReturned,executionTimeMillisEstimate" {
			t.Fatalf("%s: stages %v", v, st)
		}
		c := st[0]
		es := c.Lookup("$cursor", "executionStats").Document()
		if ix := testenv.FindStage(c.Lookup("$cursor", "queryPlanner", "winningPlan").Document(), "IXSCAN"); ix == nil || ix.Lookup("indexName").StringValue() != "time_1" {
			t.Errorf("%s: winning plan %v", v, c.Lookup("$cursor", "queryPlanner", "winningPlan"))
		}
		// The time index returns exactly the matches: as many keys and
		// documents examined as returned.
		if rawInt(t, c, "nReturned") != matched || rawInt(t, es, "nReturned") != matched ||
			rawInt(t, es, "totalKeysExamined") != matched || rawInt(t, es, "totalDocsExamined") != matched {
			t.Errorf("%s: $cursor %v (want %d)", v, c, matched)
		}
		if got := testenv.Stages(es.Lookup("executionStages").Document()); strings.Join(got, ">") != "FETCH>IXSCAN" {
			t.Errorf("%s: executionStages %v", v, got)
		}
		if !es.Lookup("executionSuccess").Boolean() {
			t.Errorf("%s: %v", v, es)
		}
		_, err := es.LookupErr("allPlansExecution")
		if (v == "allPlansExecution") != (err == nil) {
			t.Errorf("%s: allPlansExecution present=%v", v, err == nil)
		}
		p := st[1]
		if rawKeys(p) != "$project,nReturned,executionTimeMillisEstimate" || rawInt(t, p, "nReturned") != matched {
			t.Errorf("%s: $project %v", v, p)
		}
		g := st[2]
		if rawInt(t, g, "nReturned") != int64(len(groups)) || g.Lookup("usedDisk").Boolean() || rawInt(t, g, "spills") != 0 ||
			rawInt(t, g, "totalOutputDataSizeBytes") <= 0 {
			t.Errorf("%s: $group %v", v, g)
		}
		if rawInt(t, g, "executionTimeMillisEstimate") < rawInt(t, c, "executionTimeMillisEstimate") {
			t.Errorf("%s: $group time below its input's: %v", v, st)
		}
	}

	// queryPlanner runs nothing: no figures anywhere.
	res := testenv.Explain(t, db, cmd, "queryPlanner")
	for _, s := range aggStages(t, res) {
		if _, err := s.LookupErr("nReturned"); err == nil {
			t.Errorf("queryPlanner figures: %v", s)
		}
	}
	if _, err := res.LookupErr("stages", "0", "$cursor", "executionStats"); err == nil {
		t.Errorf("queryPlanner executionStats: %v", res)
	}
	// aggregate's own explain option is the queryPlanner verbosity.
	res, err = testenv.RunCmd(t, db, bson.D{{Key: "aggregate", Value: "events"}, {Key: "pipeline", Value: pipeline}, {Key: "explain", Value: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := rawKeys(res); !strings.HasPrefix(got, "explainVersion,stages,serverInfo,serverParameters,command,") {
		t.Errorf("aggregate explain: reply fields %s", got)
	}
	if _, err := res.LookupErr("stages", "0", "$cursor", "executionStats"); err == nil {
		t.Errorf("aggregate explain: executionStats: %v", res)
	}

	// Two candidate indexes: the trial's loser is in rejectedPlans and, at
	// allPlansExecution, in allPlansExecution with its trial figures.
	testenv.CreateIndex(t, coll, bson.D{{Key: "time", Value: 1}, {Key: "host", Value: 1}})
	res = testenv.Explain(t, db, cmd, "allPlansExecution")
	c := aggStages(t, res)[0]
	rejected, _ := c.Lookup("$cursor", "queryPlanner", "rejectedPlans").Array().Values()
	all, _ := c.Lookup("$cursor", "executionStats", "allPlansExecution").Array().Values()
	if len(rejected) != 1 || len(all) != 1 {
		t.Fatalf("rejected %d, allPlansExecution %d: %v", len(rejected), len(all), c)
	}
	trial := all[0].Document()
	if testenv.FindStage(trial.Lookup("executionStages").Document(), "IXSCAN") == nil || rawInt(t, trial, "totalKeysExamined") <= 0 {
		t.Errorf("trial %v", trial)
	}
	win := testenv.FindStage(c.Lookup("$cursor", "queryPlanner", "winningPlan").Document(), "IXSCAN").Lookup("indexName").StringValue()
	lose := testenv.FindStage(rejected[0].Document(), "IXSCAN").Lookup("indexName").StringValue()
	if win == lose || (win != "time_1" && win != "time_1_host_1") || (lose != "time_1" && lose != "time_1_host_1") {
		t.Errorf("winner %s, loser %s", win, lose)
	}
	if rawInt(t, c, "nReturned") != matched || rawInt(t, c, "$cursor", "executionStats", "totalDocsExamined") != matched {
		t.Errorf("$cursor %v", c)
	}
}

// A pipeline the query layer answers whole explains as find does, and
// explaining $out or $merge at executionStats writes nothing.
func TestExplainAggregateShapes(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 100, func(i int) any { return bson.D{{Key: "a", Value: i % 10}, {Key: "b", Value: i}} })
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	match := bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: 3}}}}
	cmd := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{match, bson.D{{Key: "$project", Value: bson.D{{Key: "b", Value: 1}}}}}}, {Key: "cursor", Value: bson.D{}}}
	res := testenv.Explain(t, db, cmd, "executionStats")
	if got := rawKeys(res); !strings.HasPrefix(got, "explainVersion,queryPlanner,executionStats,command,serverInfo,serverParameters,") {
		t.Errorf("reply fields %s", got)
	}
	if !res.Lookup("queryPlanner", "optimizedPipeline").Boolean() || rawInt(t, res, "executionStats", "nReturned") != 10 ||
		rawInt(t, res, "executionStats", "totalKeysExamined") != 10 {
		t.Errorf("optimized pipeline: %v", res)
	}

	for _, w := range []bson.D{{{Key: "$out", Value: "target"}}, {{Key: "$merge", Value: bson.D{{Key: "into", Value: "target"}}}}} {
		cmd := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{match, w}}, {Key: "cursor", Value: bson.D{}}}
		res := testenv.Explain(t, db, cmd, "executionStats")
		st := aggStages(t, res)
		if len(st) != 2 || rawInt(t, st[0], "nReturned") != 10 || rawInt(t, st[1], "nReturned") != 0 {
			t.Errorf("%v: %v", w, st)
		}
		names, err := db.ListCollectionNames(testenv.Ctx(t), bson.D{{Key: "name", Value: "target"}})
		if err != nil || len(names) != 0 {
			t.Errorf("%v under explain created %v (%v)", w, names, err)
		}
	}

	// An unknown verbosity is refused as mongod refuses it.
	_, err := testenv.RunCmd(t, db, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: "everything"}})
	var ce mongo.CommandError
	if e, ok := err.(mongo.CommandError); ok {
		ce = e
	}
	if ce.Code != 9 {
		t.Errorf("verbosity everything: %v", err)
	}
}
