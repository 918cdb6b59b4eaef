package crud_test

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestExprEvaluationErrorFailsTheQuery: a $expr whose evaluation fails on
// some document fails the whole operation with the expression's error, as
// mongod's does ("can't $divide by zero" is BadValue, 2; $multiply of a
// string is 16555), through a collection scan and through an index
// (FETCH's filter), for find, count, update, delete and aggregate. A
// $expr that evaluates everywhere still matches as before.
func TestExprEvaluationErrorFailsTheQuery(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("experr")
	if _, err := coll.InsertMany(c, []any{
		bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "x", Value: 2}, {Key: "s", Value: 3}},
		bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: 2}, {Key: "x", Value: 0}, {Key: "s", Value: "three"}},
		bson.D{{Key: "_id", Value: 3}, {Key: "a", Value: 3}, {Key: "x", Value: 4}, {Key: "s", Value: 5}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	divide := bson.D{{Key: "$gt", Value: bson.A{bson.D{{Key: "$divide", Value: bson.A{1, "$x"}}}, 0}}}
	multiply := bson.D{{Key: "$gt", Value: bson.A{bson.D{{Key: "$multiply", Value: bson.A{"$s", 2}}}, 0}}}
	cases := []struct {
		name   string
		filter bson.D
		code   int
	}{
		{"collscan divide", bson.D{{Key: "$expr", Value: divide}}, 2},
		{"index divide", bson.D{{Key: "a", Value: bson.D{{Key: "$gte", Value: 0}}}, {Key: "$expr", Value: divide}}, 2},
		{"collscan multiply", bson.D{{Key: "$expr", Value: multiply}}, 16555},
		{"under $nor", bson.D{{Key: "$nor", Value: bson.A{bson.D{{Key: "$expr", Value: divide}}}}}, 2},
	}
	for _, tc := range cases {
		want := func(op string, err error) {
			t.Helper()
			var se mongo.ServerError
			if !errors.As(err, &se) || !se.HasErrorCode(tc.code) {
				t.Errorf("%s, %s: %v, want code %d", tc.name, op, err, tc.code)
			}
		}
		cur, err := coll.Find(c, tc.filter, options.Find().SetHint(hintFor(tc.name)))
		if err == nil {
			var docs []bson.M
			err = cur.All(c, &docs)
		}
		want("find", err)
		_, err = coll.CountDocuments(c, tc.filter)
		want("count", err)
		_, err = coll.UpdateMany(c, tc.filter, bson.D{{Key: "$set", Value: bson.D{{Key: "touched", Value: true}}}})
		want("updateMany", err)
		_, err = coll.DeleteMany(c, tc.filter)
		want("deleteMany", err)
		cur, err = coll.Aggregate(c, mongo.Pipeline{{{Key: "$match", Value: tc.filter}}})
		if err == nil {
			var docs []bson.M
			err = cur.All(c, &docs)
		}
		want("aggregate", err)
	}
	// A $match the pipeline runs itself (after a $group), not the scan.
	cur, err := coll.Aggregate(c, mongo.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$_id"}, {Key: "x", Value: bson.D{{Key: "$first", Value: "$x"}}}}}},
		{{Key: "$match", Value: bson.D{{Key: "$expr", Value: divide}}}},
	})
	if err == nil {
		var docs []bson.M
		err = cur.All(c, &docs)
	}
	if se := (mongo.ServerError)(nil); !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Errorf("$match after $group: %v, want code 2", err)
	}
	// Evaluating everywhere: matches as before.
	ok := bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{"$a", 1}}}}}
	if n, err := coll.CountDocuments(c, ok); err != nil || n != 2 {
		t.Errorf("count of a $expr that evaluates: %d, %v, want 2", n, err)
	}
}

// hintFor forces the plan the case names.
func hintFor(name string) any {
	if len(name) > 5 && name[:5] == "index" {
		return bson.D{{Key: "a", Value: 1}}
	}
	return bson.D{{Key: "$natural", Value: 1}}
}

// TestExprErrorInParallelGroup: a $expr that fails under a $match that
// the partitioned (parallel) $group scan evaluates fails the aggregation.
func TestExprErrorInParallelGroup(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("experrpar")
	var docs []any
	for i := range 25000 { // over engine.MinPartitionDocs: the scan is split
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 7}, {Key: "x", Value: (i + 1) % 24000}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	divide := bson.D{{Key: "$gt", Value: bson.A{bson.D{{Key: "$divide", Value: bson.A{1, "$x"}}}, 0}}}
	cur, err := coll.Aggregate(c, mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "$expr", Value: divide}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	})
	if err == nil {
		var out []bson.M
		err = cur.All(c, &out)
	}
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(2) {
		t.Errorf("aggregate: %v, want code 2 (can't $divide by zero)", err)
	}
}
