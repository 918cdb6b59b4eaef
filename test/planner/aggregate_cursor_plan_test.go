package planner_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// An aggregate's explain carries the planner's plan: whole (an optimized
// pipeline the query layer answers) or in its $cursor stage. The plans of
// count, distinct, delete, update and find are in testdata/explain_commands.txt.
func TestExplainAggregateCursorPlan(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 100, func(i int) any { return bson.D{{Key: "a", Value: i % 10}, {Key: "b", Value: i}} })
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	filter := bson.D{{Key: "a", Value: 3}}
	// An aggregate the query layer answers whole explains as find does
	// (optimizedPipeline); with a stage after the query, its $cursor stage
	// carries the planner's queryPlanner.
	res, err := testenv.RunCmd(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: filter}}}}, {Key: "explain", Value: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Lookup("queryPlanner", "optimizedPipeline").Boolean() {
		t.Errorf("aggregate of a $match: %v", res)
	}
	if ix := testenv.FindStage(res.Lookup("queryPlanner", "winningPlan").Document(), "IXSCAN"); ix == nil || ix.Lookup("indexName").StringValue() != "a_1" {
		t.Errorf("aggregate plan %v", res)
	}
	res, err = testenv.RunCmd(t, db, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: filter}},
		bson.D{{Key: "$addFields", Value: bson.D{{Key: "x", Value: 1}}}}}}, {Key: "explain", Value: true}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := res.LookupErr("stages")
	if err != nil {
		t.Fatalf("no stages: %v", res)
	}
	vals, _ := st.Array().Values()
	wp := vals[0].Document().Lookup("$cursor", "queryPlanner", "winningPlan").Document()
	if ix := testenv.FindStage(wp, "IXSCAN"); ix == nil || ix.Lookup("indexName").StringValue() != "a_1" {
		t.Errorf("aggregate $cursor plan %v", wp)
	}
}
