package profiler_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// queryStats reads $queryStats on admin, keyed by the shape's command
// and namespace collection.
func queryStats(t *testing.T, c *mongo.Client) []bson.M {
	t.Helper()
	ctx := testenv.Ctx(t)
	cur, err := c.Database("admin").Aggregate(ctx, mongo.Pipeline{{{Key: "$queryStats", Value: bson.D{}}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.M
	if err := cur.All(ctx, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// shapeOf returns the entry whose queryShape has the command and filter
// shape given (as Extended JSON of the shape's filter).
func entryFor(t *testing.T, entries []bson.M, command string) []bson.M {
	t.Helper()
	var out []bson.M
	for _, e := range entries {
		qs := e["key"].(bson.D)[0].Value.(bson.D)
		for _, f := range qs {
			if f.Key == "command" && f.Value == command {
				out = append(out, e)
			}
		}
	}
	return out
}

func field(d bson.D, k string) any {
	for _, e := range d {
		if e.Key == k {
			return e.Value
		}
	}
	return nil
}

// TestQueryStats runs finds of one shape with different values, an
// aggregate and a findAndModify, and reads their statistics: one entry
// per shape, literals replaced, the figures summed, getMore batches
// counted with the find that opened the cursor.
func TestQueryStats(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("jobs")
	testenv.InsertBatches(t, coll, 300, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: i % 3}, {Key: "ts", Value: i}, {Key: "state", Value: "new"}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}})
	for cat := 0; cat < 3; cat++ {
		// 100 results each: a first batch of 101 would hold them all,
		// so ask for batches of 30 to go through getMore.
		cur, err := coll.Find(ctx, bson.D{{Key: "cat", Value: cat}}, options.Find().SetSort(bson.D{{Key: "ts", Value: -1}}).SetBatchSize(30))
		if err != nil {
			t.Fatal(err)
		}
		var all []bson.M
		if err := cur.All(ctx, &all); err != nil || len(all) != 100 {
			t.Fatalf("find: %v %d", err, len(all))
		}
	}
	if _, err := coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: bson.D{{Key: "$gt", Value: 10}}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$cat"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "state", Value: "new"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "run"}}}},
		options.FindOneAndUpdate().SetSort(bson.D{{Key: "ts", Value: 1}})).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateMany(ctx, bson.D{{Key: "cat", Value: 2}, {Key: "ts", Value: bson.D{{Key: "$lt", Value: 50}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 299}}); err != nil {
		t.Fatal(err)
	}
	// Not recorded: admin, system collections.
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	entries := queryStats(t, db.Client())
	finds := entryFor(t, entries, "find")
	if len(finds) != 1 {
		t.Fatalf("one find shape, got %d: %v", len(finds), entries)
	}
	f := finds[0]
	qs := f["key"].(bson.D)[0].Value.(bson.D)
	if ns := field(qs, "cmdNs").(bson.D); field(ns, "db") != "test" || field(ns, "coll") != "jobs" {
		t.Errorf("cmdNs: %v", ns)
	}
	filter := field(qs, "filter").(bson.D)
	if len(filter) != 1 || filter[0].Key != "cat" || field(filter[0].Value.(bson.D), "$eq") != "?number" {
		t.Errorf("filter shape: %v", filter)
	}
	if s := field(qs, "sort").(bson.D); len(s) != 1 || s[0].Key != "ts" || s[0].Value != int32(-1) {
		t.Errorf("sort kept: %v", s)
	}
	if h, _ := f["queryShapeHash"].(string); len(h) != 64 {
		t.Errorf("queryShapeHash: %v", f["queryShapeHash"])
	}
	rep := f["representativeQuery"].(bson.D)
	if rf := field(rep, "filter").(bson.D); len(rf) != 1 || rf[0].Key != "cat" || rf[0].Value != int32(2) {
		t.Errorf("representativeQuery keeps the last filter's values: %v", rep)
	}
	m := f["metrics"].(bson.D)
	if field(m, "execCount") != int64(3) {
		t.Errorf("execCount: %v", m)
	}
	if dr := field(m, "docsReturned").(bson.D); field(dr, "sum") != int64(300) || field(dr, "max") != int64(100) || field(dr, "min") != int64(100) {
		t.Errorf("docsReturned, getMores included: %v", dr)
	}
	if ke := field(m, "keysExamined").(bson.D); field(ke, "sum") != int64(300) {
		t.Errorf("keysExamined: %v", ke)
	}
	if field(m, "lastPlanSummary") != "IXSCAN { cat: 1, ts: -1 }" {
		t.Errorf("lastPlanSummary: %v", field(m, "lastPlanSummary"))
	}
	for _, k := range []string{"totalExecMicros", "firstSeenTimestamp", "latestSeenTimestamp", "lastExecutionMicros"} {
		if field(m, k) == nil {
			t.Errorf("metrics lack %s", k)
		}
	}
	if _, ok := f["asOf"].(bson.Timestamp); !ok {
		t.Errorf("asOf: %T", f["asOf"])
	}
	aggs := entryFor(t, entries, "aggregate")
	if len(aggs) != 1 {
		t.Fatalf("one aggregate shape: %v", entries)
	}
	pl := field(aggs[0]["key"].(bson.D)[0].Value.(bson.D), "pipeline").(bson.A)
	match := field(pl[0].(bson.D), "$match").(bson.D)
	if field(field(match, "ts").(bson.D), "$gt") != "?number" {
		t.Errorf("$match shape: %v", match)
	}
	group := field(pl[1].(bson.D), "$group").(bson.D)
	if field(group, "_id") != "$cat" || field(field(group, "n").(bson.D), "$sum") != "?number" {
		t.Errorf("$group shape: %v", group)
	}
	fams := entryFor(t, entries, "findAndModify")
	if len(fams) != 1 {
		t.Fatalf("one findAndModify shape: %v", entries)
	}
	fq := fams[0]["key"].(bson.D)[0].Value.(bson.D)
	if field(fq, "sort") == nil || field(field(field(fq, "update").(bson.D), "$set").(bson.D), "state") != "?string" {
		t.Errorf("findAndModify shape: %v", fq)
	}
	if dr := field(fams[0]["metrics"].(bson.D), "docsReturned").(bson.D); field(dr, "sum") != int64(1) {
		t.Errorf("findAndModify docsReturned: %v", dr)
	}
	// The statement's plan reports through the write path: a collection
	// scan of the 300 documents, sorted.
	fm := fams[0]["metrics"].(bson.D)
	if de := field(fm, "docsExamined").(bson.D); field(de, "sum") != int64(300) || field(fm, "lastPlanSummary") != "COLLSCAN" {
		t.Errorf("findAndModify figures: %v", fm)
	}
	ups := entryFor(t, entries, "update")
	if len(ups) != 1 {
		t.Fatalf("one update shape: %v", entries)
	}
	uq := ups[0]["key"].(bson.D)[0].Value.(bson.D)
	if field(uq, "multi") != true || field(field(field(uq, "update").(bson.D), "$inc").(bson.D), "n") != "?number" ||
		field(field(field(uq, "filter").(bson.D), "ts").(bson.D), "$lt") != "?number" {
		t.Errorf("update shape: %v", uq)
	}
	if field(ups[0]["metrics"].(bson.D), "lastPlanSummary") != "IXSCAN { cat: 1, ts: -1 }" {
		t.Errorf("update plan: %v", ups[0]["metrics"])
	}
	dels := entryFor(t, entries, "delete")
	if len(dels) != 1 || field(dels[0]["metrics"].(bson.D), "lastPlanSummary") != "IDHACK" {
		t.Fatalf("one delete shape by _id: %v", dels)
	}
	for _, e := range entries {
		ns := field(e["key"].(bson.D)[0].Value.(bson.D), "cmdNs").(bson.D)
		if field(ns, "db") == "admin" {
			t.Errorf("admin recorded: %v", e)
		}
	}
}

// TestQueryStatsErrors checks $queryStats' placement and options as
// mongod refuses them.
func TestQueryStatsErrors(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	admin := db.Client().Database("admin")
	_, err := db.Collection("c").Aggregate(ctx, mongo.Pipeline{{{Key: "$queryStats", Value: bson.D{}}}})
	testenv.WantCmdError(t, err, 73, "InvalidNamespace")
	_, err = admin.Aggregate(ctx, mongo.Pipeline{{{Key: "$queryStats", Value: bson.D{}}}, {{Key: "$queryStats", Value: bson.D{}}}})
	testenv.WantCode(t, "$queryStats second", err, 40602)
	_, err = admin.Aggregate(ctx, mongo.Pipeline{{{Key: "$queryStats", Value: bson.D{{Key: "transformIdentifiers", Value: bson.D{{Key: "algorithm", Value: "hmac-sha-256"}}}}}}})
	testenv.WantCmdError(t, err, 238, "NotImplemented")
	_, err = admin.Aggregate(ctx, mongo.Pipeline{{{Key: "$queryStats", Value: 1}}})
	testenv.WantCmdError(t, err, 9, "FailedToParse")
}

// TestQueryStatsSurviveRestart closes the instance and opens the same
// directory again: the statistics were saved in
// local.system.lode.queryStats and are read back.
func TestQueryStatsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	coll := db.Client().Database("app").Collection("logs")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "host", Value: "a"}, {Key: "time", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if err := coll.FindOne(ctx, bson.D{{Key: "host", Value: "a"}, {Key: "time", Value: bson.D{{Key: "$gte", Value: i}}}}).Err(); err != nil && i < 2 {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	finds := entryFor(t, queryStats(t, db.Client()), "find")
	if len(finds) != 1 || field(finds[0]["metrics"].(bson.D), "execCount") != int64(4) {
		t.Fatalf("after a restart: %v", finds)
	}
}

// TestQueryStatsReset empties the statistics with Lode's test command
// lodeResetQueryStats, which exists only with test commands enabled.
func TestQueryStatsReset(t *testing.T) {
	_, db := testenv.Open(t, lode.WithTestCommands())
	ctx := testenv.Ctx(t)
	if err := db.Collection("c").FindOne(ctx, bson.D{{Key: "a", Value: 1}}).Err(); err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	if n := len(queryStats(t, db.Client())); n != 1 {
		t.Fatalf("want one shape, got %d", n)
	}
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "lodeResetQueryStats", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	if n := len(queryStats(t, db.Client())); n != 0 {
		t.Fatalf("after the reset: %d shapes", n)
	}
	_, plain := testenv.Open(t)
	err := plain.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "lodeResetQueryStats", Value: 1}}).Err()
	testenv.WantCmdError(t, err, 59, "CommandNotFound")
}
