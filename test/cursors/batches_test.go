package cursors_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func TestCursorExhaustedBatchHasIDZero(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("c")
	for i := 0; i < 3; i++ {
		if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	var res bson.Raw
	err := d.RunCommand(c, bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 2}}).Decode(&res)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Lookup("cursor", "id").Int64()
	if id == 0 {
		t.Fatal("first batch of 2 out of 3 must leave the cursor open")
	}
	// No deadline on the raw getMore: the driver turns a context deadline into
	// maxTimeMS, which mongod (and Lode) refuse on a non-awaitData getMore.
	err = d.RunCommand(context.Background(), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 2}}).Decode(&res)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Lookup("cursor", "id").Int64(); got != 0 {
		t.Fatalf("the batch that exhausts the cursor must carry id 0, got %d", got)
	}
	n, _ := res.Lookup("cursor", "nextBatch").Array().Values()
	if len(n) != 1 {
		t.Fatalf("nextBatch has %d docs, want 1", len(n))
	}
	// The cursor is gone: getMore again is CursorNotFound (43).
	err = d.RunCommand(context.Background(), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}}).Err()
	if ce := testenv.CmdErr(t, err); ce.Code != 43 || ce.Name != "CursorNotFound" {
		t.Fatalf("got %v", ce)
	}
}

// An aggregate cursor outlives its command: getMore must work after the
// aggregate's maxTimeMS context (the driver derives it from ctx) is gone.
func TestAggregateGetMoreAfterDeadline(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("agg")
	var docs []any
	for i := 0; i < 30; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 3}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Aggregate(c, bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 1}}}}}}},
		options.Aggregate().SetBatchSize(4))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for cur.Next(c) {
		n++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 20 {
		t.Fatalf("got %d docs, want 20", n)
	}
}
