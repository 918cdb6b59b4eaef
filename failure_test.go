package lode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/lodedb/lode/internal/storage"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// withFS runs the storage engine on fs (tests inject I/O errors).
func withFS(fs vfs.FS) Option { return func(c *config) { c.fs = storage.NewFS(fs) } }

// failingFS wraps the OS filesystem: once armed, every write, sync and
// file creation under it fails with errno.
func failingFS(armed *atomic.Bool, errno syscall.Errno) vfs.FS {
	return errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if armed.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return &os.PathError{Op: "injected", Path: op.Path, Err: errno}
		}
		return nil
	}))
}

// TestStorageFailureFailsEveryOperation injects an I/O error (EIO, then
// ENOSPC) under an embedded DB: the write that meets it fails, the DB
// enters its failed state, where every later operation, reads included,
// fails at once with the failure's code (InternalError for EIO,
// OutOfDiskSpace for a full disk), nothing hangs, Close returns, and
// the process goes on: a program embedding Lode is not killed, as
// mongod's fatal assertion would. Reopened on a healthy filesystem, the
// directory has every write acknowledged with j:true.
func TestStorageFailureFailsEveryOperation(t *testing.T) {
	for _, tc := range []struct {
		errno syscall.Errno
		code  int32
	}{{syscall.EIO, 1}, {syscall.ENOSPC, 14031}} {
		t.Run(tc.errno.Error(), func(t *testing.T) {
			dir := t.TempDir()
			var armed atomic.Bool
			var logs lockedBuffer
			db, err := Open(dir, InProcess(), withFS(failingFS(&armed, tc.errno)),
				WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))),
				WithClientOptions(options.Client().SetTimeout(30*time.Second).SetRetryWrites(false).SetRetryReads(false)))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			coll := db.Client().Database("app").Collection("docs", options.Collection().SetWriteConcern(writeconcern.Journaled()))
			var acked []string
			for i := range 50 {
				id := fmt.Sprintf("d%d", i)
				if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
					t.Fatal(err)
				}
				acked = append(acked, id)
			}
			armed.Store(true)

			// The write that meets the error fails, promptly.
			start := time.Now()
			_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "lost"}})
			if err == nil {
				t.Fatal("a j:true insert succeeded on a failing filesystem")
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("the failing insert took %v", d)
			}
			// Then every operation fails at once with the failure's code.
			ops := map[string]func(context.Context) error{
				"insert": func(ctx context.Context) error {
					_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "after"}})
					return err
				},
				"find": func(ctx context.Context) error {
					return coll.FindOne(ctx, bson.D{{Key: "_id", Value: "d1"}}).Err()
				},
				"count": func(ctx context.Context) error {
					_, err := coll.CountDocuments(ctx, bson.D{})
					return err
				},
				"ping": func(ctx context.Context) error {
					return db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
				},
			}
			for name, op := range ops {
				// The failure closes the connections (ending operations
				// stuck in the engine): an operation may first meet a
				// closed connection, then the failure.
				var err error
				for range 3 {
					ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
					start := time.Now()
					err = op(ctx)
					cancel()
					if d := time.Since(start); d > 2*time.Second {
						t.Errorf("%s took %v to fail", name, d)
					}
					var se mongo.ServerError
					if err == nil || errors.As(err, &se) {
						break
					}
				}
				if err == nil {
					t.Errorf("%s succeeded on a failed DB", name)
					continue
				}
				var se mongo.ServerError
				if !errors.As(err, &se) || !se.HasErrorCode(int(tc.code)) {
					t.Errorf("%s: %v, want code %d", name, err, tc.code)
				}
			}
			closed := make(chan error, 1)
			go func() { closed <- db.Close() }()
			select {
			case err := <-closed:
				if err == nil || !strings.Contains(err.Error(), dir) {
					t.Errorf("Close of a failed DB: %v, want the failure naming %s", err, dir)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Close of a failed DB did not return")
			}
			if n := strings.Count(logs.String(), "\n"); n > 20 {
				t.Errorf("%d log lines for one failure:\n%s", n, logs.String())
			}

			// Healthy again: every acknowledged write is there.
			armed.Store(false)
			db2, err := Open(dir, InProcess())
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			c2 := db2.Client().Database("app").Collection("docs")
			for _, id := range acked {
				if err := c2.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err(); err != nil {
					t.Fatalf("acknowledged %s after reopening: %v", id, err)
				}
			}
		})
	}
}

// lockedBuffer is a log destination safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStorageFailureReleasesConcurrentWriters: writers racing an EIO on
// the WAL all get an error within a bounded time, including one blocked
// inside the storage engine's commit (Pebble keeps its commit lock after
// a failed WAL write): its connection is closed after a grace second.
func TestStorageFailureReleasesConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var armed atomic.Bool
	var logs lockedBuffer
	db, err := Open(dir, InProcess(), withFS(failingFS(&armed, syscall.EIO)),
		WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))),
		WithClientOptions(options.Client().SetTimeout(60*time.Second).SetRetryWrites(false).SetRetryReads(false)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const writers = 8
	var started, done sync.WaitGroup
	errc := make(chan error, writers)
	for w := range writers {
		started.Add(1)
		done.Add(1)
		wc := writeconcern.W1()
		if w%2 == 0 {
			wc = writeconcern.Journaled()
		}
		coll := db.Client().Database("app").Collection("docs", options.Collection().SetWriteConcern(wc))
		go func() {
			defer done.Done()
			for i := 0; ; i++ {
				_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("w%d-%d", w, i)}, {Key: "pad", Value: strings.Repeat("x", 1000)}})
				if i == 10 {
					started.Done()
				}
				if err != nil {
					if i < 10 {
						started.Done()
					}
					errc <- err
					return
				}
			}
		}()
	}
	started.Wait()
	armed.Store(true)
	all := make(chan struct{})
	go func() { done.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(15 * time.Second):
		t.Fatalf("writers still blocked 15 s after the failure; log:\n%s", logs.String())
	}
	close(errc)
	t.Logf("first writer stopped by: %v", <-errc)
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	select {
	case err := <-closed:
		if err == nil {
			t.Error("Close of a failed DB returned nil")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close of a failed DB did not return")
	}
}

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
