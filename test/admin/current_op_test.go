package admin_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestCurrentOpAndKillOp: a getMore waiting on a tailable awaitData
// cursor shows in currentOp, and killOp interrupts it with 11601.
func TestCurrentOpAndKillOp(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	ctx := context.Background()
	coll := testenv.CreateCapped(t, d, "events", 1<<20, 0)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(ctx) {
		t.Fatal(cur.Err())
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		ok := cur.TryNext(ctx)
		if ok {
			done <- errors.New("unexpected document")
			return
		}
		done <- cur.Err()
	}()
	admin := db.Client().Database("admin")
	var opid any
	for deadline := time.Now().Add(5 * time.Second); opid == nil && time.Now().Before(deadline); {
		var res bson.Raw
		if err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "op", Value: "getmore"}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		ops, _ := res.Lookup("inprog").Array().Values()
		for _, o := range ops {
			if o.Document().Lookup("ns").StringValue() == "test.events" {
				opid = o.Document().Lookup("opid").Int32()
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if opid == nil {
		t.Fatal("the waiting getMore is not in currentOp")
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(11601) {
			t.Fatalf("killed getMore: want Interrupted, got %v", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("killOp did not interrupt the wait")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("killed getMore did not return")
	}
}
