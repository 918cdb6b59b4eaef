package changestreams

import (
	"context"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/test/testenv"
)

// TestRedactAfterChangeStream: $redact is one of the stages mongod
// allows after $changeStream; here it keeps insert events and prunes the
// others.
func TestRedactAfterChangeStream(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	cs, err := coll.Watch(ctx, bson.A{bson.D{{Key: "$redact", Value: bson.D{{Key: "$cond", Value: bson.A{
		bson.D{{Key: "$eq", Value: bson.A{"$operationType", "insert"}}}, "$$KEEP", "$$PRUNE"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 2 && cs.Next(ctx) {
		op := cs.Current.Lookup("operationType").StringValue()
		id := cs.Current.Lookup("documentKey", "_id").Int32()
		got = append(got, op+":"+strconv.Itoa(int(id)))
	}
	if err := cs.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "insert:1" || got[1] != "insert:2" {
		t.Fatalf("events %v, want insert:1 and insert:2 only", got)
	}
}
