package planner_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// Equality to null matches null, undefined and missing fields. An indexed
// query must return exactly what a collection scan returns (the plans and
// their null bounds are in testdata/null_bounds.txt).
func TestNullQueriesIndexedMatchCollScan(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	plain, indexed := db.Collection("plain"), db.Collection("indexed")
	docs := []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: nil}, {Key: "b", Value: 1}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: bson.Undefined{}}, {Key: "b", Value: 2}},
		bson.D{{Key: "_id", Value: 3}, {Key: "b", Value: 3}},
		bson.D{{Key: "_id", Value: 4}, {Key: "a", Value: 1}, {Key: "b", Value: 4}},
		bson.D{{Key: "_id", Value: 5}, {Key: "a", Value: bson.A{nil, 2}}, {Key: "b", Value: 5}},
		bson.D{{Key: "_id", Value: 6}, {Key: "a", Value: bson.D{{Key: "c", Value: nil}}}, {Key: "b", Value: 6}},
		bson.D{{Key: "_id", Value: 7}, {Key: "a", Value: bson.A{bson.Undefined{}}}, {Key: "b", Value: 7}},
		bson.D{{Key: "_id", Value: 8}, {Key: "a", Value: "x"}, {Key: "b", Value: 8}},
	}
	for _, c := range []string{"plain", "indexed"} {
		if _, err := db.Collection(c).InsertMany(testenv.Ctx(t), docs); err != nil {
			t.Fatal(err)
		}
	}
	testenv.CreateIndex(t, indexed, bson.D{{Key: "a", Value: 1}})
	testenv.CreateIndex(t, indexed, bson.D{{Key: "a.c", Value: 1}})

	filters := []bson.D{
		{{Key: "a", Value: nil}},
		{{Key: "a", Value: bson.D{{Key: "$eq", Value: nil}}}},
		{{Key: "a", Value: bson.D{{Key: "$in", Value: bson.A{nil, 1}}}}},
		{{Key: "a", Value: bson.D{{Key: "$gte", Value: nil}}}},
		{{Key: "a", Value: bson.D{{Key: "$lte", Value: nil}}}},
		{{Key: "a", Value: bson.D{{Key: "$elemMatch", Value: bson.D{{Key: "$eq", Value: nil}}}}}},
		{{Key: "a.c", Value: nil}},
		{{Key: "a", Value: nil}, {Key: "b", Value: bson.D{{Key: "$gte", Value: 2}}}},
	}
	for _, f := range filters {
		t.Run(fmt.Sprint(f), func(t *testing.T) {
			want := matchIDs(t, plain, f)
			got := matchIDs(t, indexed, f)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("indexed %v, collection scan %v", got, want)
			}
			if nw, ng := testenv.Count(t, plain, f), testenv.Count(t, indexed, f); nw != ng || nw != int64(len(want)) {
				t.Errorf("count indexed %d, collection scan %d, find %d", ng, nw, len(want))
			}
		})
	}
	// {a: null} matches null, undefined, missing and the array holding null.
	if got := matchIDs(t, indexed, bson.D{{Key: "a", Value: nil}}); fmt.Sprint(got) != "[1 2 3 5 7]" {
		t.Errorf("{a: null} returned %v", got)
	}
}

// matchIDs returns the _ids of the documents matching filter, in _id order.
func matchIDs(t *testing.T, c *mongo.Collection, filter bson.D) []int32 {
	t.Helper()
	cur, err := c.Find(testenv.Ctx(t), filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(testenv.Ctx(t), &docs); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.Lookup("_id").Int32())
	}
	return out
}
