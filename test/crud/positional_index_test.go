package crud_test

import (
	"fmt"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestPositionalPathIndex checks an index on a path with a numeric part
// ({"a.0": 1}) through the Go driver, with the documents and query results
// of MongoDB's own test of numeric path components. mongod's key generator
// takes the element at that position of an array (the keys of one
// document do not depend on the other elements), refuses a document whose
// array also holds a document with a field of that name (16746: it cannot
// tell which one "a.0" means), and expands an array without that
// position; every query gives the same documents with the index as
// without it.
func TestPositionalPathIndex(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	c := d.Collection("c")
	docs := []string{
		`{"a": 42}`, `{"a": [42]}`, `{"a": {"0": 42}}`, `{"a": [[42]]}`, `{"a": [{"0": 42}]}`, `{"a": {"0": [42]}}`,
		`{"a": {"0": {"0": 42}}}`, `{"a": [[[42]]]}`, `{"a": [[{"0": 42}]]}`, `{"a": [{"0": [42]}]}`, `{"a": [{"0": {"0": 42}}]}`,
		`{"a": {"0": [[42]]}}`, `{"a": {"0": [{"0": 42}]}}`, `{"a": {"0": {"0": [42]}}}`, `{"a": {"0": {"0": {"0": 42}}}}`,
		`{"a": [[[[42]]]]}`, `{"a": [[[{"0": 42}]]]}`, `{"a": [[{"0": [42]}]]}`, `{"a": [[{"0": {"0": 42}}]]}`,
		`{"a": [{"0": [[42]]}]}`, `{"a": [{"0": [{"0": 42}]}]}`, `{"a": [{"0": {"0": [42]}}]}`, `{"a": [{"0": {"0": {"0": 42}}}]}`,
		`{"a": {"0": [[[42]]]}}`, `{"a": {"0": [[{"0": 42}]]}}`, `{"a": {"0": [{"0": [42]}]}}`, `{"a": {"0": [{"0": {"0": 42}}]}}`,
		`{"a": {"0": {"0": [[42]]}}}`, `{"a": {"0": {"0": [{"0": 42}]}}}`, `{"a": {"0": {"0": {"0": [42]}}}}`, `{"a": {"0": {"0": {"0": {"0": 42}}}}}`,
	}
	// The index first: the documents whose array at "a" has an element
	// 0 and also holds a document with a field "0" are refused.
	if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a.0", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	var refused []int
	for id, js := range docs {
		var doc bson.D
		if err := bson.UnmarshalExtJSON([]byte(js), false, &doc); err != nil {
			t.Fatal(err)
		}
		_, err := c.InsertOne(ctx, append(bson.D{{Key: "_id", Value: id}}, doc...))
		if err != nil {
			testenv.WantCode(t, js, err, 16746)
			refused = append(refused, id)
		}
	}
	if fmt.Sprint(refused) != "[4 9 10 19 20 21 22]" {
		t.Fatalf("refused %v, want [4 9 10 19 20 21 22]", refused)
	}
	// MongoDB's expected results over all 31 documents, less the refused.
	base := []int{1, 2, 4, 5, 9}
	var ne []int
	for id := range docs {
		if !slices.Contains(base, id) {
			ne = append(ne, id)
		}
	}
	for _, q := range []struct {
		filter string
		want   []int
	}{
		{`{"a.0": 42}`, base},
		{`{"a.0": {"$ne": 42}}`, ne},
		{`{"a.0.0": 42}`, []int{3, 4, 5, 6, 8, 9, 10, 12, 13, 17, 20, 21, 25}},
		{`{"a.0": {"$gt": 41}}`, base},
		{`{"a.0": {"$in": [41, 42, 43]}}`, base},
		{`{"a.0": {"$nin": [41, 42, 43]}}`, ne},
		{`{"a.0": {"$all": [42]}}`, base},
		{`{"a.0": {"$type": "number"}}`, base},
		{`{"$or": [{"a.0": 42}, {"notARealField": 123}]}`, base},
	} {
		var want []int
		for _, id := range q.want {
			if !slices.Contains(refused, id) {
				want = append(want, id)
			}
		}
		var filter bson.D
		if err := bson.UnmarshalExtJSON([]byte(q.filter), false, &filter); err != nil {
			t.Fatal(err)
		}
		for _, hint := range []bson.D{{{Key: "a.0", Value: 1}}, {{Key: "$natural", Value: 1}}} {
			cur, err := c.Find(ctx, filter, options.Find().SetHint(hint).SetSort(bson.D{{Key: "_id", Value: 1}}))
			if err != nil {
				t.Fatalf("%s hint %v: %v", q.filter, hint, err)
			}
			var got []struct {
				ID int `bson:"_id"`
			}
			if err := cur.All(ctx, &got); err != nil {
				t.Fatal(err)
			}
			var ids []int
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(want) {
				t.Errorf("%s hint %v: %v, want %v", q.filter, hint, ids, want)
			}
		}
	}
	// An array without the position expands: {"a.5": 1} finds a field
	// "5" of an element through the index.
	c2 := d.Collection("c2")
	if _, err := c2.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a.5", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.A{bson.D{{Key: "5", Value: 1}}}}}); err != nil {
		t.Fatal(err)
	}
	n, err := c2.CountDocuments(ctx, bson.D{{Key: "a.5", Value: 1}}, options.Count().SetHint(bson.D{{Key: "a.5", Value: 1}}))
	if err != nil || n != 1 {
		t.Fatalf("a.5 through the index: %d, %v", n, err)
	}
}
