package aggregation_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"

	"github.com/lodedb/lode/test/testenv"
)

// TestWindowExplainAndTransactions checks that explain shows
// $setWindowFields as mongod 7.0 desugars it ($sort on partition key and
// sortBy, pushed into the query when it can be, then $_internalSetWindowFields with each output's window; a
// computed partitionBy adds $set and $unset of
// __internal_setWindowFields_partition_key), and that the stage runs in
// a transaction and under readConcern "snapshot" (both allowed since
// MongoDB 5.3).
func TestWindowExplainAndTransactions(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := d.Collection("cakeSales")
	insertJSON(t, coll, cakeSales)
	stagesOf := func(pipeline string) []bson.Raw {
		t.Helper()
		res := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: "cakeSales"}, {Key: "pipeline", Value: extJSON(t, pipeline)}, {Key: "cursor", Value: bson.D{}}}, "queryPlanner")
		vals, err := res.Lookup("stages").Array().Values()
		if err != nil {
			t.Fatalf("explain has no stages: %v", res)
		}
		var out []bson.Raw
		for _, v := range vals {
			out = append(out, v.Document())
		}
		return out
	}
	st := stagesOf(`[{"$match": {"price": {"$gt": 0}}}, {"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
		"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}]`)
	// The $sort on (partitionBy, sortBy) is pushed into the query, as
	// mongod does: the $cursor's plan sorts.
	if len(st) != 2 {
		t.Fatalf("want $cursor, $_internalSetWindowFields; got %v", st)
	}
	sortStage := testenv.FindStage(st[0].Lookup("$cursor", "queryPlanner", "winningPlan").Document(), "SORT")
	if sortStage == nil || sortStage.Lookup("sortPattern").String() != `{"state": {"$numberInt":"1"},"orderDate": {"$numberInt":"1"}}` {
		t.Errorf("$cursor plan does not sort on {state, orderDate}: %v", st[0])
	}
	w := st[1].Lookup("$_internalSetWindowFields")
	if p := w.Document().Lookup("partitionBy").StringValue(); p != "$state" {
		t.Errorf("partitionBy = %q", p)
	}
	win := w.Document().Lookup("output", "c", "window", "documents").Array()
	if vals, _ := win.Values(); len(vals) != 2 || vals[0].StringValue() != "unbounded" || vals[1].StringValue() != "current" {
		t.Errorf("window = %v", win)
	}
	st = stagesOf(`[{"$match": {"price": {"$gt": 0}}}, {"$setWindowFields": {"partitionBy": {"$year": "$orderDate"}, "output": {"c": {"$sum": "$quantity"}}}}]`)
	var names []string
	for _, s := range st {
		e, _ := s.Elements()
		names = append(names, e[0].Key())
	}
	want := []string{"$cursor", "$set", "$sort", "$_internalSetWindowFields", "$project"}
	if len(names) != len(want) {
		t.Fatalf("stages %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("stages %v, want %v", names, want)
		}
	}

	// A constant partitionBy is no partitioning (jstests partition.js).
	st = stagesOf(`[{"$match": {"price": {"$gt": 0}}}, {"$setWindowFields": {"partitionBy": {"$add": [1, 2]}, "output": {}}}]`)
	if got := st[len(st)-1].String(); len(st) != 2 || got != `{"$_internalSetWindowFields": {"output": {}}}` {
		t.Errorf("constant partitionBy explains as %v", st)
	}

	// executionStats: mongod 7.0's memory figures of the stage.
	res := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: "cakeSales"}, {Key: "pipeline", Value: extJSON(t, `[{"$setWindowFields": {"sortBy": {"_id": 1},
		"output": {"s": {"$sum": "$quantity", "window": {"documents": [-1, 0]}}, "p": {"$push": "$type"}}}}]`)}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	vals, _ := res.Lookup("stages").Array().Values()
	ws := vals[len(vals)-1].Document()
	if ws.Lookup("nReturned").AsInt64() != 6 || ws.Lookup("maxTotalMemoryUsageBytes").AsInt64() <= 0 ||
		ws.Lookup("maxFunctionMemoryUsageBytes", "p").AsInt64() <= ws.Lookup("maxFunctionMemoryUsageBytes", "s").AsInt64() {
		t.Errorf("window stage execution figures: %v", ws)
	}
	if used, ok := ws.Lookup("usedDisk").BooleanOK(); !ok || used {
		t.Errorf("usedDisk: %v", ws)
	}

	// With readConcern "snapshot" outside a transaction.
	snap := d.Collection("cakeSales", options.Collection().SetReadConcern(readconcern.Snapshot()))
	cur, err := snap.Aggregate(testenv.Ctx(t), extJSON(t, `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
		"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]`))
	if err != nil {
		t.Fatalf("snapshot read: %v", err)
	}
	var snapGot []bson.D
	if err := cur.All(testenv.Ctx(t), &snapGot); err != nil {
		t.Fatal(err)
	}
	wantDocs(t, snapGot, `[{"_id": 4, "c": 162}, {"_id": 0, "c": 282}, {"_id": 2, "c": 427}, {"_id": 5, "c": 134}, {"_id": 3, "c": 238}, {"_id": 1, "c": 378}]`)

	// In a transaction.
	sess, err := d.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(testenv.Ctx(t))
	_, err = sess.WithTransaction(testenv.Ctx(t), func(ctx context.Context) (any, error) {
		cur, err := coll.Aggregate(ctx, extJSON(t, `[{"$setWindowFields": {"partitionBy": "$state", "sortBy": {"orderDate": 1},
			"output": {"c": {"$sum": "$quantity", "window": {"documents": ["unbounded", "current"]}}}}}, {"$project": {"c": 1}}]`))
		if err != nil {
			return nil, err
		}
		var got []bson.D
		if err := cur.All(ctx, &got); err != nil {
			return nil, err
		}
		wantDocs(t, got, `[{"_id": 4, "c": 162}, {"_id": 0, "c": 282}, {"_id": 2, "c": 427}, {"_id": 5, "c": 134}, {"_id": 3, "c": 238}, {"_id": 1, "c": 378}]`)
		return nil, nil
	})
	if err != nil {
		t.Fatalf("in a transaction: %v", err)
	}
}
