package crud_test

import (
	"fmt"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestFindMinMax: find's min and max bound the hinted index's keys in
// index order, min inclusive and max exclusive, as mongod 7.0.
func TestFindMinMax(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("mm")
	testenv.InsertBatches(t, coll, 100, func(i int) any {
		return bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: int32(i % 5)}, {Key: "b", Value: int32(i / 5)}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}})
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: -1}})
	run := func(filter bson.D, o *options.FindOptionsBuilder) ([]int32, error) {
		cur, err := coll.Find(c, filter, o)
		if err != nil {
			return nil, err
		}
		var docs []struct {
			ID int32 `bson:"_id"`
		}
		if err := cur.All(c, &docs); err != nil {
			return nil, err
		}
		out := make([]int32, len(docs))
		for i, x := range docs {
			out[i] = x.ID
		}
		return out, nil
	}
	// The whole key in index order: from (a 1, b 3) to (a 3, b 0) holds
	// a = 1 with b >= 3 and all of a = 2 (not a per-field b in [3, 0)).
	got, err := run(bson.D{}, options.Find().SetHint(bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}).
		SetMin(bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 3}}).SetMax(bson.D{{Key: "a", Value: 3}, {Key: "b", Value: 0}}))
	if err != nil {
		t.Fatal(err)
	}
	var want []int32
	for i := int32(0); i < 100; i++ {
		if a, b := i%5, i/5; a == 1 && b >= 3 || a == 2 {
			want = append(want, i)
		}
	}
	sort.Slice(want, func(i, j int) bool { // index order: a, then b
		return want[i]%5 < want[j]%5 || want[i]%5 == want[j]%5 && want[i] < want[j]
	})
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("compound range:\n got %v\nwant %v", got, want)
	}
	// max alone, and with a filter.
	got, err = run(bson.D{{Key: "b", Value: bson.D{{Key: "$lt", Value: 2}}}}, options.Find().SetHint("a_1_b_1").
		SetMax(bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}))
	if err != nil || fmt.Sprint(got) != "[0 5 1]" {
		t.Fatalf("max only: %v %v", got, err)
	}
	// A descending index: from a 4 down to a 1, exclusive.
	got, err = run(bson.D{{Key: "b", Value: 0}}, options.Find().SetHint(bson.D{{Key: "a", Value: -1}}).
		SetMin(bson.D{{Key: "a", Value: 4}}).SetMax(bson.D{{Key: "a", Value: 1}}))
	if err != nil || fmt.Sprint(got) != "[4 3 2]" {
		t.Fatalf("descending: %v %v", got, err)
	}
	// The _id index, with the other options (the drivers' command-monitoring case).
	got, err = run(bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 1}}}}, options.Find().SetHint(bson.D{{Key: "_id", Value: 1}}).
		SetMin(bson.D{{Key: "_id", Value: 0}}).SetMax(bson.D{{Key: "_id", Value: 6}}).SetSort(bson.D{{Key: "_id", Value: -1}}).SetSkip(2))
	if err != nil || fmt.Sprint(got) != "[3 2]" {
		t.Fatalf("_id: %v %v", got, err)
	}
	for _, tc := range []struct {
		name string
		o    *options.FindOptionsBuilder
		code int32
	}{
		{"no hint", options.Find().SetMin(bson.D{{Key: "a", Value: 1}}), 51173},
		{"other fields", options.Find().SetHint("a_1_b_1").SetMin(bson.D{{Key: "a", Value: 1}}), 51174},
		{"field order", options.Find().SetHint("a_1_b_1").SetMin(bson.D{{Key: "b", Value: 1}, {Key: "a", Value: 1}}), 51174},
		{"min not before max", options.Find().SetHint("a_1_b_1").SetMin(bson.D{{Key: "a", Value: 2}, {Key: "b", Value: 0}}).SetMax(bson.D{{Key: "a", Value: 2}, {Key: "b", Value: 0}}), 51175},
		{"descending order", options.Find().SetHint("a_-1").SetMin(bson.D{{Key: "a", Value: 1}}).SetMax(bson.D{{Key: "a", Value: 4}}), 51175},
		{"$natural", options.Find().SetHint(bson.D{{Key: "$natural", Value: 1}}).SetMin(bson.D{{Key: "a", Value: 1}}), 2},
	} {
		_, err := run(bson.D{}, tc.o)
		testenv.WantCode(t, tc.name, err, tc.code)
	}
	// Explain: FETCH over an IXSCAN of the key range.
	res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "mm"}, {Key: "hint", Value: "a_1_b_1"},
		{Key: "min", Value: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 3}}}, {Key: "max", Value: bson.D{{Key: "a", Value: 3}, {Key: "b", Value: 0}}}}, "executionStats")
	wp := testenv.WinningPlan(res)
	if st := fmt.Sprint(testenv.Stages(wp)); st != "[FETCH IXSCAN]" {
		t.Fatalf("plan %s", st)
	}
	ixs := testenv.FindStage(wp, "IXSCAN")
	if b := ixs.Lookup("indexBounds").Document().String(); b != `{"startKey": {"a": {"$numberInt":"1"},"b": {"$numberInt":"3"}},"startKeyInclusive": true,"endKey": {"a": {"$numberInt":"3"},"b": {"$numberInt":"0"}},"endKeyInclusive": false}` {
		t.Fatalf("indexBounds %s", b)
	}
	if n := testenv.Field(t, res, "executionStats.totalKeysExamined").AsInt64(); n > int64(len(want))+1 {
		t.Fatalf("examined %d keys for %d results", n, len(want))
	}
}

// TestFindMinMaxClustered: on a clustered collection, min/max with hint
// {_id: 1} scan the records in that _id range.
func TestFindMinMaxClustered(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	if err := d.CreateCollection(c, "cl", options.CreateCollection().SetClusteredIndex(bson.D{{Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "unique", Value: true}})); err != nil {
		t.Fatal(err)
	}
	coll := d.Collection("cl")
	testenv.InsertBatches(t, coll, 50, func(i int) any { return bson.D{{Key: "_id", Value: int32(49 - i)}} })
	cur, err := coll.Find(c, bson.D{}, options.Find().SetHint(bson.D{{Key: "_id", Value: 1}}).
		SetMin(bson.D{{Key: "_id", Value: 3}}).SetMax(bson.D{{Key: "_id", Value: 7}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID int32 `bson:"_id"`
	}
	if err := cur.All(c, &docs); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(docs) != "[{3} {4} {5} {6}]" {
		t.Fatalf("clustered min/max: %v", docs)
	}
	res := testenv.Explain(t, d, bson.D{{Key: "find", Value: "cl"}, {Key: "hint", Value: bson.D{{Key: "_id", Value: 1}}},
		{Key: "min", Value: bson.D{{Key: "_id", Value: 3}}}, {Key: "max", Value: bson.D{{Key: "_id", Value: 7}}}}, "executionStats")
	wp := testenv.WinningPlan(res)
	if wp.Lookup("stage").StringValue() != "CLUSTERED_IXSCAN" || wp.Lookup("minRecord").AsInt64() != 3 || wp.Lookup("maxRecord").AsInt64() != 7 {
		t.Fatalf("clustered min/max plan: %v", wp)
	}
	if n := testenv.Field(t, res, "executionStats.totalDocsExamined").AsInt64(); n != 4 {
		t.Fatalf("examined %d documents", n)
	}
}
