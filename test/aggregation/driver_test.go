package aggregation_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestDriver runs countDocuments and a multi-batch aggregate through the
// official Go driver against embedded Lode.
func TestDriver(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	ctx := context.Background()
	coll := db.Client().Database("shop").Collection("sales")
	var docs []any
	for i := 0; i < 25; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "cat", Value: i % 3}, {Key: "qty", Value: i}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		filter any
		opts   []options.Lister[options.CountOptions]
		want   int64
	}{
		{bson.D{}, nil, 25},
		{bson.D{{Key: "cat", Value: 1}}, nil, 8},
		{bson.D{{Key: "qty", Value: bson.D{{Key: "$gte", Value: 20}}}}, nil, 5},
		{bson.D{{Key: "cat", Value: 7}}, nil, 0},
		{bson.D{}, []options.Lister[options.CountOptions]{options.Count().SetSkip(20).SetLimit(10)}, 5},
	} {
		n, err := coll.CountDocuments(ctx, tc.filter, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.want {
			t.Errorf("CountDocuments(%v) = %d, want %d", tc.filter, n, tc.want)
		}
	}
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$lt", Value: 20}}}}}},
		{{Key: "$sort", Value: bson.D{{Key: "qty", Value: -1}}}},
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
	cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(3))
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		ID int `bson:"_id"`
	}
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 20 {
		t.Fatalf("got %d documents, want 20", len(got))
	}
	for i, g := range got {
		if g.ID != 19-i {
			t.Fatalf("document %d: _id %d, want %d", i, g.ID, 19-i)
		}
	}
	// $out then read back; $merge updates in place.
	out := mongo.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$cat"}, {Key: "total", Value: bson.D{{Key: "$sum", Value: "$qty"}}}}}},
		{{Key: "$out", Value: "totals"}},
	}
	if _, err := coll.Aggregate(ctx, out); err != nil {
		t.Fatal(err)
	}
	totals := db.Client().Database("shop").Collection("totals")
	var t0 bson.M
	if err := totals.FindOne(ctx, bson.D{{Key: "_id", Value: 0}}).Decode(&t0); err != nil {
		t.Fatal(err)
	}
	// cat 0 holds 0, 3, ..., 24: 9 values summing to 108.
	if t0["total"] != int32(108) {
		t.Fatalf("totals[0] = %v", t0)
	}
	merge := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "cat", Value: 0}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$cat"}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
		{{Key: "$merge", Value: bson.D{{Key: "into", Value: "totals"}, {Key: "whenMatched", Value: "merge"}}}},
	}
	if _, err := coll.Aggregate(ctx, merge); err != nil {
		t.Fatal(err)
	}
	var m0 bson.M
	if err := totals.FindOne(ctx, bson.D{{Key: "_id", Value: 0}}).Decode(&m0); err != nil {
		t.Fatal(err)
	}
	if m0["total"] != int32(108) || m0["n"] != int32(9) {
		t.Fatalf("after $merge: %v", m0)
	}
	// Missing cursor option.
	err = db.Client().Database("shop").RunCommand(ctx, bson.D{{Key: "aggregate", Value: "sales"}, {Key: "pipeline", Value: bson.A{}}}).Err()
	var ce mongo.CommandError
	if !asCommandError(err, &ce) || ce.Code != 9 {
		t.Fatalf("aggregate without cursor: %v", err)
	}
	// Database-level aggregate with $documents.
	dcur, err := db.Client().Database("shop").Aggregate(ctx, mongo.Pipeline{{{Key: "$documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: 2}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var ds []bson.M
	if err := dcur.All(ctx, &ds); err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 || ds[1]["x"] != int32(2) {
		t.Fatalf("$documents: %v", ds)
	}
}

func asCommandError(err error, ce *mongo.CommandError) bool {
	e, ok := err.(mongo.CommandError)
	if ok {
		*ce = e
	}
	return ok
}
