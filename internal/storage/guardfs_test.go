package storage

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A write-ahead log is extended ahead of its writes, so a j:true sync
// does not grow the file; a process that dies leaves the extended tail
// (zeros) after the last record, and reopening reads every acknowledged
// commit and nothing else.
func TestWALRunsAheadOfItsWrites(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 300
	val := []byte(strings.Repeat("v", 200))
	for i := 1; i <= n; i++ {
		b := db.NewBatch()
		b.pb.Set(appendRecordKey(nil, 3, RecordID(uint64(i))), val, nil)
		seq, err := db.Commit(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.WaitDurable(context.Background(), seq); err != nil {
			t.Fatal(err)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	if len(logs) != 1 {
		t.Fatalf("logs %v, want one", logs)
	}
	fi, err := os.Stat(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < walStep || fi.Size()%walStep != 0 {
		t.Fatalf("log size %d, want a multiple of %d: the log grew at its syncs", fi.Size(), walStep)
	}
	// The tail is written zeros, not reserved space: a write into an
	// unwritten extent converts it, metadata the next fdatasync writes
	// too. Linux reports unwritten extents as holes.
	if hole := firstHole(t, logs[0]); hole >= 0 && hole < fi.Size() {
		t.Fatalf("the log has a hole (unwritten space) at %d of its %d bytes", hole, fi.Size())
	}

	// What a kill -9 leaves: the files as they are while the DB is open.
	crashed := t.TempDir()
	copyDir(t, dir, crashed)
	db2, err := Open(crashed, Options{})
	if err != nil {
		t.Fatalf("reopen after a crash with an extended log: %v", err)
	}
	defer db2.Close()
	for i := 1; i <= n; i++ {
		v, ok, err := db2.Get(appendRecordKey(nil, 3, RecordID(uint64(i))), nil)
		if err != nil || !ok || string(v) != string(val) {
			t.Fatalf("record %d after the crash: found %v, err %v", i, ok, err)
		}
	}
	if _, ok, _ := db2.Get(appendRecordKey(nil, 3, RecordID(n+1)), nil); ok {
		t.Fatal("a record never written was read from the zeroed tail")
	}
	// The reopened store writes and syncs on.
	b := db2.NewBatch()
	b.pb.Set(appendRecordKey(nil, 3, RecordID(n+1)), val, nil)
	seq, err := db2.Commit(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := db2.WaitDurable(context.Background(), seq); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	ents, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		src, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(fmt.Errorf("copy %s: %w", e.Name(), err))
		}
		src.Close()
		dst.Close()
	}
}
