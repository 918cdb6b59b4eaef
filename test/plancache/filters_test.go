package plancache_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// An index filter limits a shape's plans to its indexes (hints ignored)
// and shows in explain's indexFilterSet; planCacheListFilters lists it,
// planCacheClearFilters removes it; results do not change.
func TestIndexFilters(t *testing.T) {
	db, coll := setup(t)
	f := bson.D{{Key: "a", Value: 3}, {Key: "b", Value: 13}}
	want := ids(t, coll, f)
	find := bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: 7}, {Key: "b", Value: 17}}},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "_id", Value: 1}}}}
	ex := testenv.Explain(t, db, find, "queryPlanner")
	if ix := testenv.FindStage(testenv.WinningPlan(ex), "IXSCAN"); ix == nil || ix.Lookup("indexName").StringValue() != "b_1" {
		t.Fatalf("without a filter: %v", testenv.WinningPlan(ex))
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "planCacheSetFilter", Value: "c"}, {Key: "query", Value: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "indexes", Value: bson.A{bson.D{{Key: "a", Value: 1}}}}}); err != nil {
		t.Fatal(err)
	}
	ex = testenv.Explain(t, db, find, "queryPlanner")
	if !ex.Lookup("queryPlanner", "indexFilterSet").Boolean() {
		t.Errorf("indexFilterSet: %v", ex)
	}
	if ix := testenv.FindStage(testenv.WinningPlan(ex), "IXSCAN"); ix == nil || ix.Lookup("indexName").StringValue() != "a_1" {
		t.Fatalf("with a filter: %v", testenv.WinningPlan(ex))
	}
	if got := ids(t, coll, f); got != want {
		t.Fatalf("with a filter: %s, want %s", got, want)
	}
	// A filter of two indexes leaves a trial, whose entry says so.
	ranged := bson.D{{Key: "a", Value: 3}, {Key: "b", Value: bson.D{{Key: "$gt", Value: 13}}}}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "planCacheSetFilter", Value: "c"}, {Key: "query", Value: ranged},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "indexes", Value: bson.A{"a_1", "b_1"}}}); err != nil {
		t.Fatal(err)
	}
	ids(t, coll, ranged)
	var entry bson.Raw
	for _, st := range stats(t, coll) {
		if st.Lookup("createdFromQuery", "query", "b").Type == bson.TypeEmbeddedDocument {
			entry = st
		}
	}
	if entry == nil || !entry.Lookup("indexFilterSet").Boolean() {
		t.Errorf("$planCacheStats of a filtered shape: %v", entry)
	}
	// A hint gives way to the filter, as in mongod.
	hinted := append(append(bson.D(nil), find...), bson.E{Key: "hint", Value: "b_1"})
	ex = testenv.Explain(t, db, hinted, "queryPlanner")
	if ix := testenv.FindStage(testenv.WinningPlan(ex), "IXSCAN"); ix == nil || ix.Lookup("indexName").StringValue() != "a_1" {
		t.Errorf("hint with a filter: %v", testenv.WinningPlan(ex))
	}
	res, err := testenv.RunCmd(t, db, bson.D{{Key: "planCacheListFilters", Value: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := res.Lookup("filters").Array().Values()
	byKey := 0
	for _, f := range fs {
		if v, ok := f.Document().Lookup("indexes", "0", "a").AsInt64OK(); ok && v == 1 {
			byKey++
		}
	}
	if len(fs) != 2 || byKey != 1 {
		t.Fatalf("planCacheListFilters: %v", res)
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "planCacheClearFilters", Value: "c"}}); err != nil {
		t.Fatal(err)
	}
	res, _ = testenv.RunCmd(t, db, bson.D{{Key: "planCacheListFilters", Value: "c"}})
	if fs, _ := res.Lookup("filters").Array().Values(); len(fs) != 0 {
		t.Fatalf("after planCacheClearFilters: %v", res)
	}
	ex = testenv.Explain(t, db, find, "queryPlanner")
	if ex.Lookup("queryPlanner", "indexFilterSet").Boolean() {
		t.Errorf("indexFilterSet after clearing: %v", ex)
	}
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheSetFilter", Value: "c"}, {Key: "query", Value: bson.D{}}})
	testenv.WantCode(t, "no indexes", err, 2)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheSetFilter", Value: "c"}, {Key: "query", Value: bson.D{}}, {Key: "indexes", Value: bson.A{}}})
	testenv.WantCode(t, "empty indexes", err, 2)
}
