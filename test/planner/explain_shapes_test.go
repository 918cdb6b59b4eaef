package planner_test

import (
	"reflect"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// Explain shapes that mongod 7.0 prints: COUNT_SCAN nests its key range in
// indexBounds; DELETE reports nWouldDelete and UPDATE nMatched,
// nWouldModify and nWouldUpsert; single-document writes without a sort
// have no LIMIT stage; maxScansToExplodeReached tells when SORT_MERGE was
// given up for the explosion limit; a missing collection plans EOF.
func TestExplainFidelity(t *testing.T) {
	// Not parallel: internalQueryMaxScansToExplode is process-wide: other plans would change while it is 2.
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 100, func(i int) any {
		return bson.D{{Key: "a", Value: i % 10}, {Key: "b", Value: i}, {Key: "s", Value: 100 - i}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: -1}})

	t.Run("COUNT_SCAN", func(t *testing.T) {
		res := testenv.Explain(t, db, bson.D{{Key: "count", Value: "c"}, {Key: "query", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 2}, {Key: "$lt", Value: 4}}}}},
			{Key: "hint", Value: "a_1"}}, "executionStats")
		cs := testenv.FindStage(res.Lookup("queryPlanner", "winningPlan").Document(), "COUNT_SCAN")
		if cs == nil {
			t.Fatalf("no COUNT_SCAN: %v", res.Lookup("queryPlanner", "winningPlan"))
		}
		for _, f := range []string{"keyPattern", "indexName", "isMultiKey", "multiKeyPaths", "isUnique", "isSparse", "isPartial", "indexVersion", "indexBounds"} {
			if _, err := cs.LookupErr(f); err != nil {
				t.Errorf("COUNT_SCAN lacks %s: %v", f, cs)
			}
		}
		if _, err := cs.LookupErr("startKey"); err == nil {
			t.Errorf("startKey outside indexBounds: %v", cs)
		}
		ib := cs.Lookup("indexBounds").Document()
		if got := ib.Lookup("startKey", "a").AsInt64(); got != 2 || !ib.Lookup("startKeyInclusive").Boolean() {
			t.Errorf("start %v", ib)
		}
		if got := ib.Lookup("endKey", "a").AsInt64(); got != 4 || ib.Lookup("endKeyInclusive").Boolean() {
			t.Errorf("end %v", ib)
		}
		es := testenv.FindStage(res.Lookup("executionStats", "executionStages").Document(), "COUNT_SCAN")
		if es.Lookup("keysExamined").AsInt64() != 20 || res.Lookup("executionStats", "totalDocsExamined").AsInt64() != 0 {
			t.Errorf("COUNT_SCAN stats %v", es)
		}
	})

	deleteOne := bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "a", Value: 3}}}, {Key: "limit", Value: 1}}}}}
	deleteMany := bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "a", Value: 3}}}, {Key: "limit", Value: 0}}}}}
	updateOne := bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "a", Value: 3}}},
		{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}}}}
	famNoSort := bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "a", Value: 3}}}, {Key: "remove", Value: true}}
	famSort := bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "a", Value: 3}}}, {Key: "sort", Value: bson.D{{Key: "s", Value: 1}}},
		{Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}
	famIndexSort := bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "a", Value: 3}}}, {Key: "sort", Value: bson.D{{Key: "b", Value: -1}}},
		{Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}}
	writes := []struct {
		name   string
		cmd    bson.D
		stages []string
		stats  map[string]int64 // fields of the write stage
		absent []string
	}{
		{"deleteOne", deleteOne, []string{"DELETE", "FETCH", "IXSCAN"}, map[string]int64{"nWouldDelete": 1}, []string{"nMatched", "nWouldModify"}},
		{"deleteMany", deleteMany, []string{"DELETE", "FETCH", "IXSCAN"}, map[string]int64{"nWouldDelete": 10}, []string{"nMatched", "nWouldModify"}},
		{"updateOne", updateOne, []string{"UPDATE", "FETCH", "IXSCAN"}, map[string]int64{"nMatched": 1, "nWouldModify": 1, "nWouldUpsert": 0}, []string{"nWouldDelete"}},
		{"findAndModify remove", famNoSort, []string{"DELETE", "FETCH", "IXSCAN"}, map[string]int64{"nWouldDelete": 1}, nil},
		{"findAndModify sort", famSort, []string{"UPDATE", "SORT", "FETCH", "IXSCAN"}, map[string]int64{"nMatched": 1}, nil},
		{"findAndModify index sort", famIndexSort, []string{"UPDATE", "LIMIT", "FETCH", "IXSCAN"}, map[string]int64{"nMatched": 1}, nil},
	}
	for _, tc := range writes {
		t.Run(tc.name, func(t *testing.T) {
			res := testenv.Explain(t, db, tc.cmd, "executionStats")
			wp := res.Lookup("queryPlanner", "winningPlan").Document()
			if got := testenv.Stages(wp); !reflect.DeepEqual(got, tc.stages) {
				t.Fatalf("stages %v, want %v", got, tc.stages)
			}
			if s := testenv.FindStage(wp, "SORT"); s != nil && s.Lookup("limitAmount").AsInt64() != 1 {
				t.Errorf("SORT limitAmount %v, want 1", s.Lookup("limitAmount"))
			}
			es := res.Lookup("executionStats").Document()
			if es.Lookup("nReturned").AsInt64() != 0 {
				t.Errorf("executionStats.nReturned %v, want 0 for a write", es.Lookup("nReturned"))
			}
			ws := es.Lookup("executionStages").Document()
			for k, v := range tc.stats {
				if got, err := ws.LookupErr(k); err != nil || got.AsInt64() != v {
					t.Errorf("%s = %v, want %d: %v", k, got, v, ws)
				}
			}
			for _, k := range tc.absent {
				if _, err := ws.LookupErr(k); err == nil {
					t.Errorf("%s present: %v", k, ws)
				}
			}
		})
	}
	if n := testenv.Count(t, coll, bson.D{}); n != 100 {
		t.Errorf("explain wrote: count %d", n)
	}

	t.Run("maxScansToExplodeReached", func(t *testing.T) {
		q := bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{1, 2, 3}}}}}},
			{Key: "sort", Value: bson.D{{Key: "b", Value: -1}}}, {Key: "hint", Value: "a_1_b_-1"}}
		res := testenv.Explain(t, db, q, "queryPlanner")
		if res.Lookup("queryPlanner", "maxScansToExplodeReached").Boolean() || !slices.Contains(testenv.Stages(res.Lookup("queryPlanner", "winningPlan").Document()), "SORT_MERGE") {
			t.Errorf("3 scans under the limit: %v", res.Lookup("queryPlanner"))
		}
		testenv.SetParameter(t, db, "internalQueryMaxScansToExplode", 2)
		defer testenv.SetParameter(t, db, "internalQueryMaxScansToExplode", 200)
		res = testenv.Explain(t, db, q, "queryPlanner")
		st := testenv.Stages(res.Lookup("queryPlanner", "winningPlan").Document())
		if !res.Lookup("queryPlanner", "maxScansToExplodeReached").Boolean() || !slices.Contains(st, "SORT") || slices.Contains(st, "SORT_MERGE") {
			t.Errorf("3 scans over a limit of 2: stages %v, %v", st, res.Lookup("queryPlanner"))
		}
	})

	t.Run("EOF", func(t *testing.T) {
		res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "nosuch"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 1}}}}, "executionStats")
		if got := testenv.Stages(res.Lookup("queryPlanner", "winningPlan").Document()); !reflect.DeepEqual(got, []string{"EOF"}) {
			t.Errorf("missing collection: stages %v, want [EOF]", got)
		}
		if n := res.Lookup("executionStats", "nReturned").AsInt64(); n != 0 {
			t.Errorf("nReturned %d", n)
		}
	})

	t.Run("PROJECTION_DEFAULT", func(t *testing.T) {
		proj := bson.D{{Key: "a", Value: 1}, {Key: "sum", Value: bson.D{{Key: "$add", Value: bson.A{"$a", "$b"}}}}}
		res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 3}}}, {Key: "projection", Value: proj}}, "queryPlanner")
		wp := res.Lookup("queryPlanner", "winningPlan").Document()
		if got := testenv.Stages(wp); len(got) == 0 || got[0] != "PROJECTION_DEFAULT" {
			t.Fatalf("stages %v, want PROJECTION_DEFAULT on top", got)
		}
		if tb := wp.Lookup("transformBy").Document(); tb.Lookup("sum").Type != bson.TypeEmbeddedDocument {
			t.Errorf("transformBy %v", tb)
		}
	})
}
