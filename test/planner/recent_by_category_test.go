package planner_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// The most recent n documents of some categories (patterns/recent) with {cat:1, ts:-1}. The sorted $in
// query merges one scan per category (SORT_MERGE) and reads about n keys;
// the hinted count with a ts bound reads no documents. The plans
// themselves are in testdata/recent_by_category.txt; this test checks the
// figures that depend on the collection's size. LODE_ACCEPTANCE=1
// runs the acceptance size, 1M documents (about 9 s here); the everyday
// run 100k, where each n still reads about n keys.
func TestRecentByCategorySortMerge(t *testing.T) {
	// Not parallel: internalQueryMaxScansToExplode is process-wide: other
	// plans would change while it is 0.
	_, db := testenv.Open(t)
	coll := db.Collection("docs")
	total := testenv.Size(100_000, 1_000_000)
	testenv.InsertBatches(t, coll, total, func(i int) any {
		return bson.D{{Key: "cat", Value: (i * 7919) % 100}, {Key: "ts", Value: i}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}})
	cats := bson.A{1, 5, 12, 23, 34, 45, 56, 67, 78, 89}
	filter := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: cats}}}}
	sortTS := bson.D{{Key: "ts", Value: -1}}
	for _, n := range []int64{100, 1000, 10000} {
		res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "docs"}, {Key: "filter", Value: filter}, {Key: "sort", Value: sortTS}, {Key: "limit", Value: n}}, "executionStats")
		st := testenv.Stages(res.Lookup("queryPlanner", "winningPlan").Document())
		if !slices.Contains(st, "SORT_MERGE") || slices.Contains(st, "SORT") {
			t.Fatalf("n=%d stages %v, want SORT_MERGE", n, st)
		}
		es := res.Lookup("executionStats").Document()
		if got := es.Lookup("nReturned").AsInt64(); got != n {
			t.Errorf("n=%d nReturned %d", n, got)
		}
		if k := es.Lookup("totalKeysExamined").AsInt64(); k > n+10 {
			t.Errorf("n=%d totalKeysExamined %d > n+10", n, k)
		}
	}
	// Results equal a blocking sort's (SORT_MERGE off).
	fetch := func() []int32 {
		cur, err := coll.Find(testenv.Ctx(t), filter, options.Find().SetSort(sortTS).SetLimit(5000))
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.Raw
		if err := cur.All(testenv.Ctx(t), &docs); err != nil {
			t.Fatal(err)
		}
		out := make([]int32, len(docs))
		for i, d := range docs {
			out[i] = d.Lookup("ts").Int32()
		}
		return out
	}
	merged := fetch()
	testenv.SetParameter(t, db, "internalQueryMaxScansToExplode", 0)
	sorted := fetch()
	testenv.SetParameter(t, db, "internalQueryMaxScansToExplode", 200)
	if len(merged) != 5000 || !reflect.DeepEqual(merged, sorted) {
		t.Errorf("SORT_MERGE and SORT results differ (%d, %d docs)", len(merged), len(sorted))
	}

	// The hinted count of the iterative algorithm is covered.
	cf := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: cats}}}, {Key: "ts", Value: bson.D{{Key: "$gt", Value: total - 10000}}}}
	res := testenv.Explain(t, db, bson.D{{Key: "count", Value: "docs"}, {Key: "query", Value: cf}, {Key: "hint", Value: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}}}, "executionStats")
	es := res.Lookup("executionStats").Document()
	if d := es.Lookup("totalDocsExamined").AsInt64(); d != 0 {
		t.Errorf("count totalDocsExamined %d, want 0: %v", d, res.Lookup("queryPlanner", "winningPlan"))
	}
	n := testenv.Count(t, coll, cf)
	if k := es.Lookup("totalKeysExamined").AsInt64(); k != n || n != 1000 {
		t.Errorf("count keysExamined %d, count %d, want both 1000", k, n)
	}
	// Unknown hint.
	_, err := testenv.RunCmd(t, db, bson.D{{Key: "find", Value: "docs"}, {Key: "hint", Value: "nope_1"}})
	if ce := testenv.CmdErr(t, err); ce.Code != 2 || !strings.Contains(ce.Message, "planner returned error :: caused by :: hint provided does not correspond to an existing index") {
		t.Errorf("unknown hint: %v", ce)
	}
}
