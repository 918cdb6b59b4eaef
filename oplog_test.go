package lode

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

// TestWithOplogSizeOff: with the oplog off, writes go on and watch()
// fails as it does on a standalone mongod ("The $changeStream stage is
// only supported on replica sets").
func TestWithOplogSizeOff(t *testing.T) {
	t.Parallel()
	db := open(t, WithOplogSizeMB(0))
	ctx := context.Background()
	coll := db.Client().Database("app").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err == nil {
		cs.Close(ctx)
		t.Fatal("watch() succeeded without an oplog")
	}
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(40573) || !strings.Contains(err.Error(), "only supported on replica sets") {
		t.Fatalf("watch() without an oplog: %v, want mongod's standalone error", err)
	}
}

// TestWithOplogSizeBound: an oplog bounded at 1 MiB keeps only the newest
// entries, so after 4 MB of writes a resume token from before them fails
// with ChangeStreamHistoryLost (286), as mongod's does once the oplog has
// rolled over, while a stream opened now still works.
func TestWithOplogSizeBound(t *testing.T) {
	t.Parallel()
	db := open(t, WithOplogSizeMB(1))
	ctx := context.Background()
	coll := db.Client().Database("app").Collection("c")
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "first"}}); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	if !cs.Next(wctx) {
		t.Fatalf("no insert event: %v", cs.Err())
	}
	cancel()
	token := append(bson.Raw(nil), cs.ResumeToken()...)
	cs.Close(ctx)

	pad := strings.Repeat("x", 16<<10)
	for i := range 256 { // 256 x 16 KiB: four times the bound
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
			t.Fatal(err)
		}
	}
	var lastErr error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(token))
		if err == nil {
			cs.Close(ctx)
			lastErr = nil
			continue
		}
		lastErr = err
		var ce mongo.CommandError
		if errors.As(err, &ce) && ce.Code == 286 {
			break
		}
	}
	var ce mongo.CommandError
	if !errors.As(lastErr, &ce) || ce.Code != 286 {
		t.Fatalf("resume from before 4 MB of writes into a 1 MiB oplog: %v, want 286 ChangeStreamHistoryLost", lastErr)
	}
	cs, err = coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatalf("a new stream on the trimmed oplog: %v", err)
	}
	cs.Close(ctx)
}
