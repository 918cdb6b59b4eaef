package planner_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// Explain of count, distinct, delete, update and aggregate's $cursor use
// the planner.
func TestExplainCommands(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 100, func(i int) any { return bson.D{{Key: "a", Value: i % 10}, {Key: "b", Value: i}} })
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	filter := bson.D{{Key: "a", Value: 3}}
	cases := []struct {
		name   string
		cmd    bson.D
		stages []string
	}{
		{"count", bson.D{{Key: "count", Value: "c"}, {Key: "query", Value: filter}}, []string{"COUNT", "COUNT_SCAN"}},
		{"distinct", bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "a"}, {Key: "query", Value: filter}}, []string{"PROJECTION_COVERED", "DISTINCT_SCAN"}},
		{"delete", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: filter}, {Key: "limit", Value: 0}}}}}, []string{"DELETE", "FETCH", "IXSCAN"}},
		{"update", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: filter}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}, {Key: "multi", Value: true}}}}}, []string{"UPDATE", "FETCH", "IXSCAN"}},
		{"find projection", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}, {Key: "projection", Value: bson.D{{Key: "b", Value: 1}}}}, []string{"PROJECTION_SIMPLE", "FETCH", "IXSCAN"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{"queryPlanner", "executionStats", "allPlansExecution"} {
				res := testenv.Explain(t, db, tc.cmd, v)
				got := testenv.Stages(res.Lookup("queryPlanner", "winningPlan").Document())
				if len(got) != len(tc.stages) {
					t.Fatalf("%s: stages %v, want %v", v, got, tc.stages)
				}
				for i := range got {
					if got[i] != tc.stages[i] {
						t.Fatalf("%s: stages %v, want %v", v, got, tc.stages)
					}
				}
				if res.Lookup("serverInfo", "version").StringValue() == "" || res.Lookup("command").Type != bson.TypeEmbeddedDocument {
					t.Errorf("missing serverInfo/command: %v", res)
				}
				_, hasStats := res.LookupErr("executionStats")
				if (v == "queryPlanner") != (hasStats != nil) {
					t.Errorf("%s: executionStats present=%v", v, hasStats == nil)
				}
			}
		})
	}
	// Nothing was written by explaining writes.
	if n := testenv.Count(t, coll, bson.D{}); n != 100 {
		t.Errorf("count %d after explain of delete", n)
	}
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
