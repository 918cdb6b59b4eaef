package lode_test

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// A find whose filter and projection the index keys answer is covered:
// PROJECTION_COVERED > IXSCAN, no document read, and the same results
// (values and numeric types) as the fetched projection.
func TestCoveredProjection(t *testing.T) {
	_, db := open(t)
	coll := db.Collection("c")
	if _, err := coll.InsertMany(ctx(t), []any{
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
		cur, err := coll.Find(ctx(t), filter, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []bson.Raw
		if err := cur.All(ctx(t), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	uncovered := get(options.Find().SetProjection(proj))
	createIndex(t, coll, bson.D{{Key: "a", Value: 1}})
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
	res := explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}, {Key: "projection", Value: proj}}, "executionStats")
	wp := res.Lookup("queryPlanner", "winningPlan").Document()
	if got := stages(wp); !reflect.DeepEqual(got, []string{"PROJECTION_COVERED", "IXSCAN"}) {
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
		res := explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}, {Key: "projection", Value: p}}, "executionStats")
		if got := stages(res.Lookup("queryPlanner", "winningPlan").Document()); !reflect.DeepEqual(got, []string{"PROJECTION_SIMPLE", "FETCH", "IXSCAN"}) {
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
