package planner_test

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// A find whose filter and projection the index keys answer is covered:
// PROJECTION_COVERED > IXSCAN, no document read, and the same results
// (values and numeric types) as the fetched projection.
func TestCoveredProjection(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	if _, err := coll.InsertMany(testenv.Ctx(t), []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: int32(5)}, {Key: "b", Value: "x"}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: int64(5)}, {Key: "b", Value: "y"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 5.0}, {Key: "b", Value: "z"}},
		bson.D{{Key: "_id", Value: 4}, {Key: "a", Value: 6}},
		bson.D{{Key: "_id", Value: 5}, {Key: "b", Value: "w"}},
	}); err != nil {
		t.Fatal(err)
	}
	filter := bson.D{{Key: "a", Value: 5}}
	proj := bson.D{{Key: "a", Value: 1}, {Key: "_id", Value: 0}}
	get := func(opts *options.FindOptionsBuilder) []bson.Raw {
		cur, err := coll.Find(testenv.Ctx(t), filter, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.Raw
		if err := cur.All(testenv.Ctx(t), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	uncovered := get(options.Find().SetProjection(proj))
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	covered := get(options.Find().SetProjection(proj).SetBatchSize(1))
	if len(covered) != 3 {
		t.Fatalf("covered results %v", covered)
	}
	// Index order equals the collection order here only up to ties; compare
	// as multisets of (type, value).
	key := func(docs []bson.Raw) map[string]int {
		m := map[string]int{}
		for _, d := range docs {
			m[d.String()]++
		}
		return m
	}
	if !reflect.DeepEqual(key(covered), key(uncovered)) {
		t.Errorf("covered %v, fetched %v", covered, uncovered)
	}
	for _, d := range covered {
		if _, err := d.LookupErr("_id"); err == nil {
			t.Errorf("_id in %v", d)
		}
	}
	res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}, {Key: "projection", Value: proj}}, "executionStats")
	wp := res.Lookup("queryPlanner", "winningPlan").Document()
	if got := testenv.Stages(wp); !reflect.DeepEqual(got, []string{"PROJECTION_COVERED", "IXSCAN"}) {
		t.Fatalf("stages %v, want PROJECTION_COVERED > IXSCAN", got)
	}
	if tb := wp.Lookup("transformBy").Document(); tb.String() != bson.Raw(mustMarshal(t, proj)).String() {
		t.Errorf("transformBy %v", tb)
	}
	es := res.Lookup("executionStats").Document()
	if es.Lookup("totalDocsExamined").AsInt64() != 0 || es.Lookup("totalKeysExamined").AsInt64() != 3 || es.Lookup("nReturned").AsInt64() != 3 {
		t.Errorf("executionStats %v", es)
	}
	// _id not excluded, or a field outside the index: FETCH.
	for _, p := range []bson.D{{{Key: "a", Value: 1}}, {{Key: "a", Value: 1}, {Key: "b", Value: 1}, {Key: "_id", Value: 0}}} {
		res := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}, {Key: "projection", Value: p}}, "executionStats")
		if got := testenv.Stages(res.Lookup("queryPlanner", "winningPlan").Document()); !reflect.DeepEqual(got, []string{"PROJECTION_SIMPLE", "FETCH", "IXSCAN"}) {
			t.Errorf("projection %v: stages %v", p, got)
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// distinct on an indexed field plans PROJECTION_COVERED > DISTINCT_SCAN,
// reading about one key per distinct value, and returns what a collection
// scan returns (null from documents holding null, nothing from documents
// missing the field).
func TestDistinctScan(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	indexed := db.Collection("indexed")
	for _, c := range []string{"plain", "indexed"} {
		testenv.InsertBatches(t, db.Collection(c), 1000, func(i int) any {
			switch {
			case i%100 == 7:
				return bson.D{{Key: "b", Value: i}} // no a
			case i%100 == 8:
				return bson.D{{Key: "a", Value: nil}, {Key: "b", Value: i}}
			}
			return bson.D{{Key: "a", Value: i % 10}, {Key: "b", Value: i}}
		})
	}
	testenv.CreateIndex(t, indexed, bson.D{{Key: "a", Value: 1}})
	distinct := func(c string, filter bson.D) string {
		res, err := testenv.RunCmd(t, db, bson.D{{Key: "distinct", Value: c}, {Key: "key", Value: "a"}, {Key: "query", Value: filter}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Lookup("values").String()
	}
	for _, f := range []bson.D{{}, {{Key: "a", Value: bson.D{{Key: "$gte", Value: 3}}}}} {
		want, got := distinct("plain", f), distinct("indexed", f)
		if want != got {
			t.Errorf("filter %v: indexed %s, collection scan %s", f, got, want)
		}
	}
	if got := distinct("indexed", bson.D{}); got != `[null,{"$numberInt":"0"},{"$numberInt":"1"},{"$numberInt":"2"},{"$numberInt":"3"},{"$numberInt":"4"},{"$numberInt":"5"},{"$numberInt":"6"},{"$numberInt":"7"},{"$numberInt":"8"},{"$numberInt":"9"}]` {
		t.Errorf("distinct a = %s", got)
	}
	res := testenv.Explain(t, db, bson.D{{Key: "distinct", Value: "indexed"}, {Key: "key", Value: "a"}}, "executionStats")
	wp := res.Lookup("queryPlanner", "winningPlan").Document()
	if got := testenv.Stages(wp); !reflect.DeepEqual(got, []string{"PROJECTION_COVERED", "DISTINCT_SCAN"}) {
		t.Fatalf("stages %v, want PROJECTION_COVERED > DISTINCT_SCAN", got)
	}
	if tb := wp.Lookup("transformBy").String(); tb != `{"_id": {"$numberInt":"0"},"a": {"$numberInt":"1"}}` {
		t.Errorf("transformBy %s", tb)
	}
	ds := testenv.FindStage(wp, "DISTINCT_SCAN")
	if ds.Lookup("indexName").StringValue() != "a_1" || ds.Lookup("direction").StringValue() != "forward" {
		t.Errorf("DISTINCT_SCAN %v", ds)
	}
	// The 20 null keys (10 null, 10 missing) are each read; the values 0
	// to 9 one key each.
	es := res.Lookup("executionStats").Document()
	if k := es.Lookup("totalKeysExamined").AsInt64(); k != 30 || es.Lookup("totalDocsExamined").AsInt64() != 0 {
		t.Errorf("keys %d docs %d, want 30 and 0", k, es.Lookup("totalDocsExamined").AsInt64())
	}
}
