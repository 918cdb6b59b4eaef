package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// bulkBatch returns a bulk insert's batch (NewIngestBatch) of n records of collection 7 from
// rid first, each with an entry in index 3 (keys in falling order, so the
// run needs sorting) and an oplog-like key, and session "s" written twice
// (the second value must win), about 1.5 MB for n = 4000.
func bulkBatch(t *testing.T, db *DB, first RecordID, n int, session string) *Batch {
	t.Helper()
	b := db.NewIngestBatch(64 << 10)
	b.GroupIndexEntries()
	doc := make([]byte, 300)
	binary.LittleEndian.PutUint32(doc, uint32(len(doc)))
	for i := 0; i < n; i++ {
		rid := first + RecordID(i)
		if err := SetRecord(b, 7, rid, doc); err != nil {
			t.Fatal(err)
		}
		if err := SetIndexEntry(b, 3, binary.BigEndian.AppendUint32(nil, uint32(1<<31-int(rid))), rid, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		k := binary.BigEndian.AppendUint64([]byte{KindOplog}, uint64(first)+uint64(i))
		if err := b.set(k, []byte("entry")); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{"first", session} {
		if err := SetSession(b, []byte("s"), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// checkBulk checks that the n records of bulkBatch from first are there,
// with their index entries, and the session's last value.
func checkBulk(t *testing.T, db *DB, first RecordID, n int, session string) {
	t.Helper()
	for _, rid := range []RecordID{first, first + RecordID(n/2), first + RecordID(n-1)} {
		if _, found, err := GetRecord(db.Reader(), 7, rid, nil); err != nil || !found {
			t.Fatalf("record %d: found %v, %v", rid, found, err)
		}
	}
	lo, hi := indexRange(3)
	it, err := db.Reader().newIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	for ok := it.First(); ok; ok = it.Next() {
		entries++
	}
	it.Close()
	if entries < n {
		t.Fatalf("index 3 holds %d entries, want at least %d", entries, n)
	}
	v, found, err := GetSession(db.Reader(), []byte("s"), nil)
	if err != nil || !found || !bytes.Equal(v, []byte(session)) {
		t.Fatalf("session: %q, %v, %v; want %q", v, found, err, session)
	}
}

// TestCommitByIngestion: a large bulk insert's batch of sets is ingested
// (Pebble counts one ingestion, the WAL does not grow by the batch), its
// keys read back, a key written twice holds its last value, the records
// appended past their range's end go to the last level, and a batch with
// a deletion or below the threshold is committed through the WAL: its
// staged sets (the last of each key) and then what followed, in the order
// made.
func TestCommitByIngestion(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	walBefore := db.pdb.Metrics().WAL.BytesIn
	b := bulkBatch(t, db, 1, 4000, "v1")
	if b.Len() < ingestCommitMin {
		t.Fatalf("test batch of %d bytes is below the threshold", b.Len())
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	m := db.pdb.Metrics()
	if m.Ingest.Count != 1 {
		t.Fatalf("%d ingestions, want 1", m.Ingest.Count)
	}
	if grew := m.WAL.BytesIn - walBefore; grew > 64<<10 {
		t.Errorf("the WAL grew by %d bytes for an ingested batch", grew)
	}
	if m.Levels[6].TablesCount == 0 {
		t.Errorf("nothing reached the last level: %v", m)
	}
	checkBulk(t, db, 1, 4000, "v1")

	// A second load after the first: appended again, its session value
	// replacing the first's.
	if _, err := db.Commit(bulkBatch(t, db, 4001, 4000, "v2")); err != nil {
		t.Fatal(err)
	}
	if n := db.pdb.Metrics().Ingest.Count; n != 2 {
		t.Fatalf("%d ingestions, want 2", n)
	}
	checkBulk(t, db, 4001, 4000, "v2")
	checkBulk(t, db, 1, 4000, "v2")

	// A deletion, or too few bytes: through the WAL, the writes after
	// the staged sets in the order made (record 9001 set, deleted, set
	// again; 9002 set then deleted).
	b = bulkBatch(t, db, 9001, 4000, "v3")
	if err := b.del(appendRecordKey(nil, 7, 2)); err != nil {
		t.Fatal(err)
	}
	if err := b.del(appendRecordKey(nil, 7, 9001)); err != nil {
		t.Fatal(err)
	}
	if err := SetRecord(b, 7, 9001, []byte("again")); err != nil {
		t.Fatal(err)
	}
	if err := b.del(appendRecordKey(nil, 7, 9002)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if v, found, err := GetRecord(db.Reader(), 7, 9001, nil); err != nil || !found || string(v) != "again" {
		t.Fatalf("record 9001 set, deleted and set again: %q, %v, %v", v, found, err)
	}
	if _, found, _ := GetRecord(db.Reader(), 7, 9002, nil); found {
		t.Fatal("record 9002 survived its deletion")
	}
	b = bulkBatch(t, db, 20001, 10, "v4")
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if n := db.pdb.Metrics().Ingest.Count; n != 2 {
		t.Fatalf("%d ingestions, want still 2", n)
	}
	checkBulk(t, db, 20001, 10, "v4")
	if _, found, _ := GetRecord(db.Reader(), 7, 2, nil); found {
		t.Fatal("record 2 survived its deletion")
	}
}

// TestCommitByIngestionCrash: what was committed before an ingested batch,
// without a sync of its own, survives a crash right after the batch (the
// WAL is synced first: no later write outlives an earlier one), and so
// does the batch, durable when Commit returns.
func TestCommitByIngestionCrash(t *testing.T) {
	mem, dir, db := openCrashable(t)
	b := db.NewBatch()
	if err := SetMeta(b, "before", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Commit(bulkBatch(t, db, 1, 4000, "v1")); err != nil {
		t.Fatal(err)
	}
	crashed := mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
	db2, err := Open(dir, Options{FS: NewFS(crashed)})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if v, ok, err := db2.GetMeta("before", nil); err != nil || !ok || string(v) != "x" {
		t.Fatalf("the write before the ingested batch after a crash: %q, %v, %v", v, ok, err)
	}
	checkBulk(t, db2, 1, 4000, "v1")
}

// TestIngestDirectory: the tables of batches committed by ingestion are
// written in one bulk-commit directory and removed once ingested; what a
// crash leaves there is removed at the next open, but not by an open
// refused because another holds the directory.
func TestIngestDirectory(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := db.Commit(bulkBatch(t, db, RecordID(1+4000*i), 4000, "v")); err != nil {
			t.Fatal(err)
		}
	}
	if n := db.pdb.Metrics().Ingest.Count; n != 2 {
		t.Fatalf("%d ingestions, want 2", n)
	}
	bulk := filepath.Join(dir, ingestDir)
	left, err := os.ReadDir(bulk)
	if err != nil {
		t.Fatalf("no %s after two ingested batches: %v", ingestDir, err)
	}
	if len(left) != 0 {
		t.Fatalf("%s keeps %d files after the ingestions", ingestDir, len(left))
	}
	if dirs, _ := filepath.Glob(filepath.Join(dir, "bulk-*")); len(dirs) != 1 {
		t.Fatalf("bulk directories after two ingestions: %v, want only %s", dirs, ingestDir)
	}
	// A crash's leftover, then an open refused while db holds the
	// directory: the leftover stays.
	stale := filepath.Join(bulk, "7-0000.sst")
	if err := os.WriteFile(stale, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("a refused open removed the holder's table: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the leftover table survived the next open: %v", err)
	}
	checkBulk(t, db, 4001, 4000, "v")
}

// TestIngestSessionRedo: a batch committed by ingestion writes its session
// records through the WAL, not as a table (three tables a batch here:
// records, index entries, oplog), and leaves no redo record; a crash
// before its ingestion leaves the session's earlier record and none of the
// batch, a crash after the ingestion but before the session writes leaves
// the batch and, once reopened, its session record.
func TestIngestSessionRedo(t *testing.T) {
	t.Cleanup(func() { ingestRedoHook = nil })
	for _, stage := range []int{1, 2} {
		t.Run(fmt.Sprintf("crash at stage %d", stage), func(t *testing.T) {
			mem, dir, db := openCrashable(t)
			ingestRedoHook = nil
			if _, err := db.Commit(bulkBatch(t, db, 1, 4000, "v1")); err != nil {
				t.Fatal(err)
			}
			var tables int64
			for _, l := range db.pdb.Metrics().Levels {
				tables += int64(l.TablesIngested)
			}
			if tables != 3 {
				t.Fatalf("%d tables ingested for one batch, want 3 (no session table)", tables)
			}
			checkBulk(t, db, 1, 4000, "v1")
			checkNoRedo(t, db)

			var crashed *vfs.MemFS
			ingestRedoHook = func(s int) {
				if s == stage {
					crashed = mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 0})
				}
			}
			if _, err := db.Commit(bulkBatch(t, db, 4001, 4000, "v2")); err != nil {
				t.Fatal(err)
			}
			ingestRedoHook = nil
			checkBulk(t, db, 4001, 4000, "v2")
			checkNoRedo(t, db)
			if crashed == nil {
				t.Fatalf("stage %d never reached", stage)
			}
			db2, err := Open(dir, Options{FS: NewFS(crashed)})
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			checkNoRedo(t, db2)
			if stage == 1 {
				checkBulk(t, db2, 1, 4000, "v1")
				if _, found, _ := GetRecord(db2.Reader(), 7, 4001, nil); found {
					t.Fatal("a record of the batch the crash stopped before its ingestion")
				}
				return
			}
			checkBulk(t, db2, 4001, 4000, "v2")
			checkBulk(t, db2, 1, 4000, "v2")
		})
	}
}

// checkNoRedo fails if db holds a redo record.
func checkNoRedo(t *testing.T, db *DB) {
	t.Helper()
	it, err := db.Reader().newIter(&pebble.IterOptions{LowerBound: []byte{kindCatalog, catalogIngestRedo}, UpperBound: []byte{kindCatalog, catalogIngestRedo + 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if it.First() {
		t.Fatalf("a redo record is left: %x", it.Key())
	}
}

// openCrashable opens a DB at /db in a strict in-memory filesystem whose
// state a test can clone as a crash leaves it (MemFS.CrashClone), with no
// periodic sync; it is closed when the test ends.
func openCrashable(t *testing.T) (*vfs.MemFS, string, *DB) {
	t.Helper()
	mem := vfs.NewCrashableMem()
	dir := "/db"
	if err := mem.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir, Options{FS: NewFS(mem), SyncInterval: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return mem, dir, db
}

// TestUnstageInKeyOrder: a bulk batch too small to ingest is replayed into
// its Pebble batch in key order, one set per key, the last written (the
// memtable's inserter then finds each key next to the one before).
func TestUnstageInKeyOrder(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := bulkBatch(t, db, 1, 10, "last")
	defer b.Close()
	if err := b.unstage(); err != nil {
		t.Fatal(err)
	}
	r := b.pb.Reader()
	var prev []byte
	n, sessions := 0, 0
	for {
		kind, k, v, ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if kind != pebble.InternalKeyKindSet {
			t.Fatalf("entry %d is a %v, want a set", n, kind)
		}
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			t.Fatalf("entry %d (%x) does not follow %x", n, k, prev)
		}
		if k[0] == kindSession {
			sessions++
			if string(v) != "last" {
				t.Fatalf("session holds %q, want the last write", v)
			}
		}
		prev = append(prev[:0], k...)
		n++
	}
	// 10 records, 10 index entries, 10 oplog keys, one session.
	if n != 31 || sessions != 1 {
		t.Fatalf("%d entries (%d of the session), want 31 (1)", n, sessions)
	}
}
