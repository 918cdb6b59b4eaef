package storage

import (
	"context"
	"errors"
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
)

// injectFS fails, while armed, every write whose path satisfies match
// with errno.
func injectFS(armed *atomic.Bool, errno syscall.Errno, match func(path string) bool) FS {
	return NewFS(errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if armed.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite && match(op.Path) {
			return &os.PathError{Op: "injected", Path: op.Path, Err: errno}
		}
		return nil
	})))
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// within fails the test if f does not return within d.
func within(t *testing.T, what string, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// TestWALFailureFailsDB: a WAL write failing with EIO fails the DB:
// the write and every later Commit, WaitDurable and Flush return the
// Failure at once, OnFailure is called once, and Close returns.
func TestWALFailureFailsDB(t *testing.T) {
	var armed atomic.Bool
	var calls atomic.Int32
	var got *Failure
	dir := t.TempDir()
	db, err := Open(dir, Options{SyncInterval: time.Hour, Logger: quietLog(),
		FS:        injectFS(&armed, syscall.EIO, func(string) bool { return true }),
		OnFailure: func(f *Failure) { calls.Add(1); got = f }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	commit := func(i uint64) (uint64, error) {
		b := db.NewBatch()
		b.pb.Set(appendRecordKey(nil, 1, RecordID(i)), []byte("x"), nil)
		return db.Commit(b)
	}
	seq, err := commit(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.WaitDurable(ctx, seq); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	// Writers racing the failure: each returns, with an error once the
	// failure is known.
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				seq, err := commit(uint64(100 + w*20 + i))
				if err == nil {
					err = db.WaitDurable(ctx, seq)
				}
				if err != nil {
					return
				}
			}
			t.Errorf("writer %d: 20 durable commits on a failing filesystem", w)
		}()
	}
	within(t, "writers on a failing WAL", 10*time.Second, wg.Wait)
	var f *Failure
	if err := db.Failed(); !errors.As(err, &f) || f.DiskFull || !errors.Is(err, syscall.EIO) || f.MongoCode() != 1 {
		t.Fatalf("Failed() = %v, want an EIO Failure", err)
	}
	if calls.Load() != 1 || got != f {
		t.Errorf("OnFailure called %d times", calls.Load())
	}
	within(t, "calls on a failed DB", time.Second, func() {
		if _, err := commit(1000); !errors.Is(err, f) {
			t.Errorf("Commit: %v, want the Failure", err)
		}
		if err := db.Sync(ctx); !errors.Is(err, f) {
			t.Errorf("Sync: %v, want the Failure", err)
		}
		if err := db.Flush(); !errors.Is(err, f) {
			t.Errorf("Flush: %v, want the Failure", err)
		}
	})
	within(t, "Close of a failed DB", 2*failedCloseWait, func() {
		if err := db.Close(); !errors.Is(err, f) {
			t.Errorf("Close: %v, want the Failure", err)
		}
	})
}

// TestFlushFailureFailsDB: a background flush failing with ENOSPC (the
// sstable does not fit) fails the DB with a disk-full Failure, and Flush,
// which Pebble would otherwise retry forever, returns.
func TestFlushFailureFailsDB(t *testing.T) {
	var armed atomic.Bool
	var errLines atomic.Int32
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		errLines.Add(1)
		return len(p), nil
	}), nil))
	db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour, Logger: log,
		FS: injectFS(&armed, syscall.ENOSPC, func(p string) bool { return strings.HasSuffix(p, ".sst") })})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.pb.Set(appendRecordKey(nil, 1, RecordID(1)), []byte("x"), nil)
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	within(t, "Flush on a full disk", 10*time.Second, func() {
		var f *Failure
		if err := db.Flush(); !errors.As(err, &f) || !f.DiskFull || f.MongoCode() != 14031 {
			t.Errorf("Flush: %v, want a disk-full Failure", err)
		}
	})
	time.Sleep(time.Second) // Pebble's flush retries go on meanwhile
	if n := errLines.Load(); n > 5 {
		t.Errorf("%d log lines in a second of failed flush retries, want no flood", n)
	}
	within(t, "Close of a failed DB", 2*failedCloseWait, func() { db.Close() })
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestOpenRefusesFailingDir: Open refuses a directory where a probe
// file cannot be written and synced, with ErrNoSpace for a full disk.
func TestOpenRefusesFailingDir(t *testing.T) {
	var armed atomic.Bool
	armed.Store(true)
	dir := t.TempDir()
	notDir := func(p string) bool { return p != dir } // the probe, not MkdirAll
	_, err := Open(dir, Options{Logger: quietLog(), FS: injectFS(&armed, syscall.ENOSPC, notDir)})
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "probe") {
		t.Errorf("Open on a full disk: %v, want ErrNoSpace naming %s", err, dir)
	}
	_, err = Open(dir, Options{Logger: quietLog(), FS: injectFS(&armed, syscall.EIO, notDir)})
	if err == nil || errors.Is(err, ErrNoSpace) || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "probe") {
		t.Errorf("Open on a failing disk: %v, want the probe's EIO", err)
	}
	armed.Store(false)
	db, err := Open(dir, Options{Logger: quietLog(), FS: injectFS(&armed, syscall.EIO, func(string) bool { return true })})
	if err != nil {
		t.Fatalf("Open once healthy: %v", err)
	}
	db.Close()
}

// TestWALFailureWhileSwitchingMemtables: a WAL write failing while Pebble
// switches memtables (a Flush, or a commit too large for the memtable)
// is one Pebble cannot unwind: unguarded, it ends the process with a
// fatal error ("unlock of unlocked mutex"). Guarded (guardfs.go), the DB
// fails, the switching call stays parked, every later Commit returns the
// Failure at once and Close returns.
func TestWALFailureWhileSwitchingMemtables(t *testing.T) {
	defer func(d time.Duration) { failedCloseWait = d }(failedCloseWait)
	failedCloseWait = 300 * time.Millisecond // Pebble cannot close here: do not wait long for it
	for _, how := range []string{"flush", "large commit"} {
		t.Run(how, func(t *testing.T) {
			var armed atomic.Bool
			dir := t.TempDir()
			db, err := Open(dir, Options{SyncInterval: time.Hour, Logger: quietLog(),
				FS: injectFS(&armed, syscall.EIO, func(string) bool { return true })})
			if err != nil {
				t.Fatal(err)
			}
			var big *Batch
			if how == "large commit" {
				big = db.NewBatch()
				val := make([]byte, 1<<20)
				for i := range 40 { // over half the 64 MiB memtable: Pebble switches memtables for it
					if err := big.set([]byte{'z', byte(i)}, val); err != nil {
						t.Fatal(err)
					}
				}
			}
			b := db.NewBatch()
			if err := b.set([]byte("k"), []byte("v")); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			armed.Store(true)
			go func() { // stays parked inside Pebble
				if big != nil {
					db.Commit(big)
				} else {
					db.Flush()
				}
			}()
			deadline := time.Now().Add(10 * time.Second)
			for db.Failed() == nil {
				if time.Now().After(deadline) {
					t.Fatal("the DB did not fail")
				}
				time.Sleep(time.Millisecond)
			}
			within(t, "Commit on the failed DB", time.Second, func() {
				b := db.NewBatch()
				b.set([]byte("k2"), []byte("v"))
				if _, err := db.Commit(b); !errors.As(err, new(*Failure)) {
					t.Errorf("Commit: %v, want the Failure", err)
				}
			})
			within(t, "Close", 3*failedCloseWait, func() {
				if err := db.Close(); !errors.As(err, new(*Failure)) {
					t.Errorf("Close: %v, want the Failure", err)
				}
			})
		})
	}
}
