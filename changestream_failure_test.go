package lode

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestChangeStreamOnFailedSyncFailsPromptly: a change stream reports a
// change only once an fsync has covered it (changestream.Reader), and
// asks for that fsync itself. When the fsync fails, the database enters
// its failed state and no fsync will ever come: the stream's waiting
// getMore must fail with the failure at once, not wait out its
// maxAwaitTimeMS, and the change that was never made durable must not
// be reported.
func TestChangeStreamOnFailedSyncFailsPromptly(t *testing.T) {
	var armed atomic.Bool
	fs := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		switch op.Kind {
		case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
			if armed.Load() {
				return &os.PathError{Op: "injected", Path: op.Path, Err: syscall.EIO}
			}
		}
		return nil
	}))
	db, err := Open(t.TempDir(), InProcess(), withFS(fs),
		WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		WithClientOptions(options.Client().SetRetryWrites(false).SetRetryReads(false)))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	coll := db.Client().Database("app").Collection("events")
	const await = 20 * time.Second
	cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetMaxAwaitTime(await))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)

	// Writes still succeed (a w:1 insert does not sync), syncs fail.
	armed.Store(true)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "never-durable"}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if cs.Next(ctx) {
		t.Fatalf("the stream reported %v, which no fsync covered", cs.Current)
	}
	took := time.Since(start)
	var se mongo.ServerError
	if err := cs.Err(); !errors.As(err, &se) || !se.HasErrorCode(1) {
		t.Fatalf("the stream ended with %v, want the storage failure (InternalError, 1)", err)
	}
	// Without its check of the failure (Reader.durable), the getMore
	// returned after about a second here; with it, in milliseconds.
	if took > 500*time.Millisecond {
		t.Fatalf("the stream took %v to report the failed fsync (maxAwaitTime %v)", took, await)
	}
}
