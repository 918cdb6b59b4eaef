package planner_test

import (
	"fmt"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// An anchored regex on _id scans the _id index from "123_" up to
// "123`".
func TestAnchoredRegexIDBounds(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 2000, func(i int) any {
		return bson.D{{Key: "_id", Value: fmt.Sprintf("%d_%d", i%500, i)}}
	})
	res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.Regex{Pattern: "^123_"}}}}}, "executionStats")
	ix := testenv.FindStage(res.Lookup("queryPlanner", "winningPlan").Document(), "IXSCAN")
	if ix == nil || ix.Lookup("indexName").StringValue() != "_id_" {
		t.Fatalf("plan %v", res.Lookup("queryPlanner", "winningPlan"))
	}
	vals, _ := ix.Lookup("indexBounds", "_id").Array().Values()
	var got []string
	for _, v := range vals {
		got = append(got, v.StringValue())
	}
	if want := []string{`["123_", "123` + "`" + `")`, `[/^123_/, /^123_/]`}; !reflect.DeepEqual(got, want) {
		t.Errorf("bounds %q, want %q", got, want)
	}
	if n := res.Lookup("executionStats", "nReturned").AsInt64(); n != 4 {
		t.Errorf("nReturned %d, want 4", n)
	}
	if k := res.Lookup("executionStats", "totalKeysExamined").AsInt64(); k != 4 {
		t.Errorf("totalKeysExamined %d, want 4", k)
	}
}
