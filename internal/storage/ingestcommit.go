package storage

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A bulk insert's batch (DB.NewIngestBatch) of at least ingestCommitMin
// bytes that only adds keys is committed by ingestion instead of through
// the WAL and the memtable: its keys are sorted into one sstable per key
// range (a collection's records, each index's entries, the oplog, the
// sessions, the catalog) and the tables are ingested together, atomically
// and durably. Pebble puts each table in the lowest level where no key of
// its range lies in between, so the records, the _id entries of ObjectIds
// and the oplog entries of a load, which are appended past the end of
// their ranges, go straight to the last level: nothing is flushed or
// compacted after the load, where the same keys through the memtable were
// written about three times more (a flush to level 0, then compactions
// down) and left a compaction debt to the queries that followed.
//
// Before the ingestion the WAL is synced, so that nothing committed
// before the batch can be lost while the batch survives a crash; the
// ingestion itself is durable when it returns.

// ingestCommitMin is the smallest batch committed by ingestion: below it
// the files, fsyncs and manifest edit of the tables cost more than the
// WAL, the memtable and the flush and compactions that follow. Between
// 512 KiB and 1 MiB ingestion is the cheaper: a 5,000-document insertMany
// of the recent seed (about 520 KB with its oplog runs) 2.1 → 1.3 µs of
// server CPU per document, and 10,000 documents without an oplog (0.9 MB)
// 1.9 → 1.0, the queries after unchanged; at 64 KiB it was the dearer
// (docs/benchmarks.md).
const ingestCommitMin = 512 << 10

// ingestEntry is one key of a batch committed by ingestion; ord is its
// position in the batch (the later of two writes of one key wins).
type ingestEntry struct {
	key, value []byte
	ord        int
}

// ingestRange returns the length of the prefix of key that names its
// range: a collection's records or an index's entries (kind and id), or
// the other families (one kind byte).
func ingestRange(key []byte) int {
	if len(key) >= 9 && (key[0] == kindRecord || key[0] == kindIndex) {
		return 9
	}
	return min(1, len(key))
}

// ingestSeq numbers the batches committed by ingestion, whose tables are
// written in one directory, bulk-commit, kept while the database is open
// (a crash's leftovers are removed at the next open, with the sorted
// loads' directories). A directory made and removed per batch cost a
// mkdir and a freed inode each time, which ext4's inode allocator then
// skips, as recently freed, at every table created (on ext4 without a
// journal): 2% of the recent load's insert CPU, 7% of the event log's.
var ingestSeq atomic.Uint64

// ingestDir is the name of the directory of the tables of batches
// committed by ingestion, in the database's directory.
const ingestDir = "bulk-commit"

// ingestRuns commits groups, sorted runs of distinct keys of one range
// each, by ingestion: one sstable per run, ingested together.
func (db *DB) ingestRuns(groups [][]ingestEntry) (err error) {
	seq := ingestSeq.Add(1)
	// The session's records go through the WAL, with a redo record
	// (ingestredo.go).
	groups, redo, witness := splitRedo(groups)
	var redoKey []byte
	if redo != nil {
		redoKey = ingestRedoKey(seq)
		if err := db.commitWrites(func(pb *pebble.Batch) error {
			return pb.Set(redoKey, encodeRedo(witness, redo), nil)
		}); err != nil {
			return err
		}
	}
	// Everything committed before is made durable first, the redo record
	// with it.
	if err := db.logSync(); err != nil {
		return err
	}
	if ingestRedoHook != nil && redo != nil {
		ingestRedoHook(1)
	}
	// The tables are written past guardFS: a full disk fails this batch
	// (nothing of it is committed), not the database.
	fs, raw := db.popts.FS, false
	if g, ok := fs.(guardFS); ok {
		fs, raw = g.FS, g.raw
	}
	dir := fs.PathJoin(db.dir, ingestDir)
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("storage: commit by ingestion: %w", err)
	}
	paths := make([]string, 0, len(groups))
	ingested := false
	defer func() {
		// Pebble removes the tables it ingested; those of a failed
		// ingestion are removed here, and its redo record: the next
		// open would find no witness and drop it, but it need not wait.
		// After the ingestion the redo record stays until its writes
		// are applied, here or at the next open.
		if err != nil && !ingested {
			for _, p := range paths {
				fs.Remove(p)
			}
			if redoKey != nil && db.failure.Load() == nil {
				_ = db.commitWrites(func(pb *pebble.Batch) error { return pb.Delete(redoKey, nil) })
			}
		}
	}()
	wopts := db.popts.MakeWriterOptions(6, db.pdb.TableFormat())
	for i, g := range groups {
		path := fs.PathJoin(dir, fmt.Sprintf("%d-%04d.sst", seq, i))
		paths = append(paths, path)
		if err := writeIngestTable(fs, path, wopts, g, raw); err != nil {
			return err
		}
	}
	if err := db.ingestNoEnter(paths); err != nil {
		return err
	}
	ingested = true
	db.ingestCommits.Add(1)
	if redo == nil {
		return nil
	}
	if ingestRedoHook != nil {
		ingestRedoHook(2)
	}
	// The session writes, and the redo record's end, in one commit.
	return db.commitWrites(func(pb *pebble.Batch) error {
		for _, e := range redo {
			if err := pb.Set(e.key, e.value, nil); err != nil {
				return err
			}
		}
		return pb.Delete(redoKey, nil)
	})
}

// commitWrites commits, without a sync, the writes fill adds to a fresh
// Pebble batch.
func (db *DB) commitWrites(fill func(pb *pebble.Batch) error) error {
	pb := db.pdb.NewBatch()
	defer pb.Close()
	if err := fill(pb); err != nil {
		return err
	}
	return db.commit(pb)
}

// sortGroups sorts each of groups, the writes of one key range each in
// the order made, into distinct keys (sortDistinct), and orders the
// groups by key.
func sortGroups(groups [][]ingestEntry) [][]ingestEntry {
	for gi, g := range groups {
		groups[gi] = sortDistinct(g)
	}
	slices.SortFunc(groups, func(a, b []ingestEntry) int { return bytes.Compare(a[0].key, b[0].key) })
	return groups
}

// sortDistinct orders g by key, keeping of several writes of one key the
// last; a run already in strictly rising order (records, ObjectIds, the
// oplog) is returned as it is.
func sortDistinct(g []ingestEntry) []ingestEntry {
	rising := true
	for i := 1; i < len(g); i++ {
		if bytes.Compare(g[i-1].key, g[i].key) >= 0 {
			rising = false
			break
		}
	}
	if rising {
		return g
	}
	slices.SortFunc(g, func(a, b ingestEntry) int {
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return a.ord - b.ord
	})
	out := g[:0]
	for i := range g {
		if len(out) > 0 && bytes.Equal(out[len(out)-1].key, g[i].key) {
			out[len(out)-1] = g[i]
			continue
		}
		out = append(out, g[i])
	}
	return out
}

// writeIngestTable writes g, sorted and distinct, as one sstable at path.
func writeIngestTable(fs vfs.FS, path string, wopts sstable.WriterOptions, g []ingestEntry, raw bool) error {
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("storage: commit by ingestion: %w", err)
	}
	w := sstable.NewWriter(newTableWritable(f, path, raw), wopts)
	for _, e := range g {
		if err := w.Set(e.key, e.value); err != nil {
			_ = w.Close()
			return fmt.Errorf("storage: commit by ingestion: write sstable: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("storage: commit by ingestion: write sstable: %w", err)
	}
	return nil
}

// ingestNoEnter ingests paths for a caller inside db.enter (Commit).
func (db *DB) ingestNoEnter(paths []string) (err error) {
	defer db.recoverFatal(&err)
	err = db.pdb.Ingest(context.Background(), paths)
	if err != nil && isIOFailure(err) {
		err = db.fail(err)
	}
	return err
}
