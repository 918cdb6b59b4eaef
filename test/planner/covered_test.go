package planner_test

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// A find whose filter and projection the index keys answer is covered
// (its plan is in testdata/covered.txt) and returns the same results
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
}

// distinct on an indexed field (a DISTINCT_SCAN, testdata/covered.txt)
// returns what a collection scan returns (null from documents holding
// null, nothing from documents missing the field).
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
}
