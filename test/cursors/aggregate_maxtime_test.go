package cursors_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestMaxTimeMSWholeCursor checks through the driver that an aggregate's
// maxTimeMS bounds the processing time of the whole cursor, summed over
// getMores, as MongoDB documents: idle time between getMores does not
// count, work spread over many getMores does, and getMore itself may not
// carry maxTimeMS for a non-awaitData cursor (BadValue).
func TestMaxTimeMSWholeCursor(t *testing.T) {
	// context.Background, not testenv.Ctx: the driver would turn a
	// deadline into maxTimeMS on the getMores, which this cursor refuses.
	ctx := context.Background()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	var docs []any
	for i := 0; i < 3000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	// Idle time: batches of one with pauses longer than the limit.
	res := db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 3}}}}}}}},
		{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 1}}}, {Key: "maxTimeMS", Value: 100}})
	var first struct {
		Cursor struct {
			ID int64 `bson:"id"`
		} `bson:"cursor"`
	}
	if err := res.Decode(&first); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		time.Sleep(150 * time.Millisecond)
		err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: first.Cursor.ID}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 1}}).Err()
		if err != nil {
			t.Fatalf("getMore %d after idling past maxTimeMS: %v", i, err)
		}
	}
	// getMore may not set maxTimeMS on this cursor.
	res = db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}}, {Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 1}}}})
	if err := res.Decode(&first); err != nil {
		t.Fatal(err)
	}
	err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: first.Cursor.ID}, {Key: "collection", Value: "c"}, {Key: "maxTimeMS", Value: 1000}}).Err()
	testenv.WantCode(t, "getMore with maxTimeMS", err, 2)
	// Work: each document costs a $reduce over 3000 numbers; batches of 50
	// take a fraction of the limit, the whole cursor far more.
	slow := bson.A{
		bson.D{{Key: "$addFields", Value: bson.D{{Key: "s", Value: bson.D{{Key: "$reduce", Value: bson.D{
			{Key: "input", Value: bson.D{{Key: "$range", Value: bson.A{0, 3000}}}},
			{Key: "initialValue", Value: 0},
			{Key: "in", Value: bson.D{{Key: "$add", Value: bson.A{"$$value", "$$this"}}}}}}}}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "s", Value: 1}}}},
	}
	start := time.Now()
	res = db.RunCommand(ctx, bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: slow},
		{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 50}}}, {Key: "maxTimeMS", Value: 300}})
	err = res.Err()
	if err == nil {
		if err := res.Decode(&first); err != nil {
			t.Fatal(err)
		}
	}
	for err == nil && first.Cursor.ID != 0 {
		var next struct {
			Cursor struct {
				ID int64 `bson:"id"`
			} `bson:"cursor"`
		}
		res := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: first.Cursor.ID}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 50}})
		if err = res.Err(); err == nil {
			if err := res.Decode(&next); err != nil {
				t.Fatal(err)
			}
			first.Cursor.ID = next.Cursor.ID
		}
	}
	testenv.WantCode(t, "the whole cursor past maxTimeMS", err, 50)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the cursor ran %v past a 300ms limit", d)
	}
}
