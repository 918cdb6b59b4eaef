package clients

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestMongoshCurrentOpKillOp: a getMore waiting on a tailable cursor (Go
// driver) is found by mongosh's db.currentOp() and stopped by its
// db.killOp(); the getMore then fails with Interrupted (11601).
func TestMongoshCurrentOpKillOp(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri()))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	d := client.Database("test")
	if err := d.CreateCollection(ctx, "events", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	coll := d.Collection("events")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	if !cur.Next(ctx) {
		t.Fatal(cur.Err())
	}
	done := make(chan error, 1)
	go func() {
		if cur.TryNext(ctx) {
			done <- errors.New("unexpected document")
			return
		}
		done <- cur.Err()
	}()
	out := runMongosh(t, s, "ops_currentop.js")
	if !strings.Contains(out, "ops killed") {
		t.Fatalf("script did not finish:\n%s", out)
	}
	select {
	case err := <-done:
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(11601) {
			t.Fatalf("killed getMore: want Interrupted, got %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("killed getMore did not return")
	}
}
