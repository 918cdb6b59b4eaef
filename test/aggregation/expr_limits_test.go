package aggregation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// aggOne runs pipeline over db.coll (one document) with maxTimeMS ms (0:
// none) and returns the error and the time it took.
func aggOne(t *testing.T, d *mongo.Database, pipeline string, ms int) (bson.Raw, error, time.Duration) {
	t.Helper()
	var p bson.A
	if err := bson.UnmarshalExtJSON([]byte(pipeline), false, &p); err != nil {
		t.Fatal(err)
	}
	cmd := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: p}, {Key: "cursor", Value: bson.D{}}}
	if ms > 0 {
		cmd = append(cmd, bson.E{Key: "maxTimeMS", Value: ms})
	}
	start := time.Now()
	r, err := d.RunCommand(testenv.Ctx(t), cmd).Raw()
	return r, err, time.Since(start)
}

func openOne(t *testing.T) *mongo.Database {
	_, d := testenv.Open(t)
	if _, err := d.Collection("c").InsertOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "ab"}}); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRangeMemoryLimit checks $range's memory limit
// (internalQueryMaxRangeBytes, 100 MiB, estimated as mongod does: 24
// bytes plus 16 a value): past it ExceededMemoryLimit 146 at once with
// mongod's message; just under it the array is built.
func TestRangeMemoryLimit(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	_, err, took := aggOne(t, d, `[{"$project":{"r":{"$range":[0,100000000]}}}]`, 0)
	ce := testenv.WantCmdError(t, err, 146, "ExceededMemoryLimit")
	if ce.Message != "$range would use too much memory (1600000040 bytes) and cannot spill to disk. Memory limit: 104857600 bytes" {
		t.Fatalf("message: %q", ce.Message)
	}
	if took > 2*time.Second {
		t.Fatalf("refusing $range took %v", took)
	}
	// [0, 6553597) is estimated at 24+16*6553598 = 104857592 bytes (mongod
	// counts 1+(end-start)/step values): under the limit. The count keeps
	// the reply small.
	r, err, _ := aggOne(t, d, `[{"$project":{"n":{"$size":{"$range":[0,6553597]}}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := testenv.FirstBatch(t, r)[0].Lookup("n").Int32(); n != 6553597 {
		t.Fatalf("size %d", n)
	}
	_, err, _ = aggOne(t, d, `[{"$project":{"n":{"$size":{"$range":[0,6553598]}}}}]`, 0)
	if ce := testenv.WantCmdError(t, err, 146, "ExceededMemoryLimit"); !strings.Contains(ce.Message, "(104857608 bytes)") {
		t.Fatalf("message: %q", ce.Message)
	}
	// A negative step counts the same way.
	_, err, _ = aggOne(t, d, `[{"$project":{"r":{"$range":[0,-100000000,-1]}}}]`, 0)
	testenv.WantCmdError(t, err, 146, "ExceededMemoryLimit")
}

// TestStringSizeLimit checks that strings built by expressions stop at
// mongod's 16 MB string limit (16493 "Tried to create string longer than
// 16MB"): doubling a string through $reduce and $concat, and $replaceAll
// growing one, fail instead of growing without bound.
func TestStringSizeLimit(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	_, err, _ := aggOne(t, d, `[{"$project":{"s":{"$reduce":{"input":{"$range":[0,40]},"initialValue":"$s","in":{"$concat":["$$value","$$value"]}}}}}]`, 0)
	ce := testenv.WantCmdError(t, err, 16493, "Location16493")
	if ce.Message != "Tried to create string longer than 16MB" {
		t.Fatalf("message: %q", ce.Message)
	}
	// 2^23 bytes (8 MiB) is fine; its length is returned.
	r, err, _ := aggOne(t, d, `[{"$project":{"n":{"$strLenBytes":{"$reduce":{"input":{"$range":[0,22]},"initialValue":"$s","in":{"$concat":["$$value","$$value"]}}}}}}]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := testenv.FirstBatch(t, r)[0].Lookup("n").Int32(); n != 1<<23 {
		t.Fatalf("length %d", n)
	}
	big := strings.Repeat("x", 1<<20)
	_, err, _ = aggOne(t, d, `[{"$project":{"s":{"$replaceAll":{"input":"`+big+`","find":"x","replacement":"yyyyyyyyyyyyyyyyy"}}}}]`, 0)
	testenv.WantCmdError(t, err, 16493, "Location16493")
}

// TestExpressionLoopsStopAtMaxTimeMS checks that long expression loops
// check the operation's deadline as mongod checks for interrupts: a
// maxTimeMS of 200 stops each within a fraction of the time the
// evaluation takes (several seconds) with MaxTimeMSExpired.
func TestExpressionLoopsStopAtMaxTimeMS(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for _, p := range []string{
		// 36 million additions in one document.
		`[{"$project":{"s":{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value",{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}]}}}}}]`,
		`[{"$project":{"s":{"$size":{"$map":{"input":{"$range":[0,6000]},"in":{"$size":{"$filter":{"input":{"$range":[0,6000]},"cond":{"$gt":["$$this",3]}}}}}}}}}]`,
		// Doubling an array: each step copies it.
		`[{"$project":{"s":{"$size":{"$reduce":{"input":{"$range":[0,100]},"initialValue":[1,2,3,4,5,6,7,8],"in":{"$concatArrays":["$$value",{"$slice":["$$value",1000]}]}}}}}}]`,
	} {
		_, err, took := aggOne(t, d, p, 200)
		testenv.WantCmdError(t, err, 50, "MaxTimeMSExpired")
		if took > 2*time.Second {
			t.Fatalf("%s: stopped after %v, past a 200 ms limit", p, took)
		}
	}
}

// TestExpressionLoopsStopAtKillOp checks that killOp stops an aggregate
// busy in one long expression (36 million additions for one document)
// with Interrupted (11601), within a fraction of the evaluation's time.
func TestExpressionLoopsStopAtKillOp(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	ctx := testenv.Ctx(t)
	var p bson.A
	slow := `[{"$project":{"s":{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value",{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}]}}}}}]`
	if err := bson.UnmarshalExtJSON([]byte(slow), false, &p); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		// No deadline, so no maxTimeMS: only killOp ends it.
		done <- d.RunCommand(context.Background(), bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: p},
			{Key: "cursor", Value: bson.D{}}, {Key: "comment", Value: "slow-expression"}}).Err()
	}()
	admin := d.Client().Database("admin")
	var opid any
	for deadline := time.Now().Add(5 * time.Second); opid == nil && time.Now().Before(deadline); {
		var res bson.Raw
		if err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "command.comment", Value: "slow-expression"}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		if ops, _ := res.Lookup("inprog").Array().Values(); len(ops) == 1 {
			opid = ops[0].Document().Lookup("opid").Int32()
		}
		time.Sleep(20 * time.Millisecond)
	}
	if opid == nil {
		t.Fatal("the aggregate is not in currentOp")
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		testenv.WantCmdError(t, err, 11601, "Interrupted")
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("killOp stopped the expression after %v", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("killOp did not stop the expression within 5 s")
	}
}

// TestFindExpressionsStopAtMaxTimeMS checks the same deadline checks in
// a find: a computed projection field and a $expr filter busy in one
// long loop stop with MaxTimeMSExpired.
func TestFindExpressionsStopAtMaxTimeMS(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	const loop = `{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value",{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}]}}}`
	var e bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(loop), false, &e); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []bson.D{
		{{Key: "find", Value: "c"}, {Key: "projection", Value: bson.D{{Key: "s", Value: e}}}, {Key: "maxTimeMS", Value: 200}},
		{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{e, 0}}}}}}, {Key: "maxTimeMS", Value: 200}},
	} {
		start := time.Now()
		err := d.RunCommand(context.Background(), cmd).Err()
		if ce, ok := err.(mongo.CommandError); !ok || ce.Code != 50 || ce.Name != "MaxTimeMSExpired" {
			t.Fatalf("%v: want MaxTimeMSExpired, got %v", cmd[1], err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("%v: stopped after %v, past a 200 ms limit", cmd[1], took)
		}
	}
}

// TestBuiltValueLimit checks Lode's bound on one array or document an
// expression builds (100 MiB, ExceededMemoryLimit 146): values doubled
// through $reduce by an array literal, an object literal or
// $concatArrays stop there, quickly, instead of growing past what BSON
// can encode.
func TestBuiltValueLimit(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	for _, in := range []string{
		`["$$value","$$value"]`,
		`{"l":"$$value","r":"$$value"}`,
		`{"$concatArrays":[["$$value"],["$$value"]]}`,
	} {
		p := `[{"$project":{"v":{"$reduce":{"input":{"$range":[0,40]},"initialValue":"$s","in":` + in + `}}}},{"$project":{"v":{"$type":"$v"}}}]`
		_, err, took := aggOne(t, d, p, 0)
		ce := testenv.WantCmdError(t, err, 146, "ExceededMemoryLimit")
		if !strings.Contains(ce.Message, "104857600 bytes") {
			t.Fatalf("%s: message %q", in, ce.Message)
		}
		if took > 10*time.Second*testenv.SlowFactor {
			t.Fatalf("%s: refused after %v", in, took)
		}
	}
}

// TestUpdateExpressionsStopAtMaxTimeMS checks the deadline checks in
// writes: an update whose $expr filter, or whose pipeline, is busy in one
// long loop stops with MaxTimeMSExpired and changes nothing.
func TestUpdateExpressionsStopAtMaxTimeMS(t *testing.T) {
	t.Parallel()
	d := openOne(t)
	const loop = `{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value",{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}]}}}`
	var e bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(`{"e":`+loop+`}`), false, &e); err != nil {
		t.Fatal(err)
	}
	loopV := e.Lookup("e")
	for name, stmt := range map[string]bson.D{
		"$expr filter": {{Key: "q", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{loopV, 0}}}}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}},
		"pipeline":     {{Key: "q", Value: bson.D{}}, {Key: "u", Value: bson.A{bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: loopV}}}}}}},
	} {
		start := time.Now()
		err := d.RunCommand(context.Background(), bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{stmt}}, {Key: "maxTimeMS", Value: 200}}).Err()
		if ce, ok := err.(mongo.CommandError); !ok || ce.Code != 50 {
			t.Fatalf("%s: want MaxTimeMSExpired, got %v", name, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("%s: stopped after %v, past a 200 ms limit", name, took)
		}
	}
	if n := testenv.Count(t, d.Collection("c"), bson.D{{Key: "x", Value: bson.D{{Key: "$exists", Value: true}}}}); n != 0 {
		t.Fatalf("a stopped update changed %d documents", n)
	}
}
