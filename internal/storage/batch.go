package storage

import (
	"cmp"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Batch is a set of writes committed atomically by DB.Commit. The store
// types add their writes to it (SetRecord, the index, session and catalog
// stores); only the keys of families whose layout is kept outside them
// (the oplog's: OplogKey) are written raw with Set and DeleteRange.
type Batch struct {
	pb    *pebble.Batch
	kb    []byte // key scratch of the store functions (the batch copies keys)
	arr   [64]byte
	colls []uint64 // the collections whose records it writes (recordcache.go)
	// grouped: index entries go to one side batch per index (sides),
	// appended to pb in index order when the batch commits, so that the
	// memtable receives each index's keys in a run (GroupIndexEntries).
	grouped bool
	sides   []sideBatch
	// st holds the writes of a bulk insert's batch (NewIngestBatch) while
	// they are all sets (ingeststage.go), to be committed by ingestion
	// when large enough (ingestcommit.go); nil once replayed into pb.
	st *ingestStage
}

// sideBatch holds the index entries of one index (Batch.grouped).
type sideBatch struct {
	indexID uint64
	pb      *pebble.Batch
}

// GroupIndexEntries makes b keep the index entries it is given from now
// on per index, to be written after its other keys: a batch of many
// inserts then reaches Pebble's memtable as runs of neighbouring keys
// (the records, then each index's entries, then the oplog's), each
// inserted next to the one before instead of searched for from the top
// of the skiplist. The order of the writes to any one key is kept. Only
// for a write-only batch (NewBatch).
func (b *Batch) GroupIndexEntries() { b.grouped = true }

// indexBatch is the batch an index entry of indexID is written to.
func (b *Batch) indexBatch(indexID uint64) *pebble.Batch {
	if !b.grouped {
		return b.pb
	}
	for i := range b.sides {
		if b.sides[i].indexID == indexID {
			return b.sides[i].pb
		}
	}
	sb := sideBatch{indexID: indexID, pb: newSide()}
	b.sides = append(b.sides, sb)
	return sb.pb
}

// newSide returns a write-only batch that is never committed itself.
func newSide() *pebble.Batch { return new(pebble.Batch) }

// mergeSides appends the side batches to pb, in index order, and stops
// grouping: after it every write goes to pb in the order made.
func (b *Batch) mergeSides() error {
	if len(b.sides) == 0 {
		b.grouped = false
		return nil
	}
	slices.SortFunc(b.sides, func(x, y sideBatch) int { return cmp.Compare(x.indexID, y.indexID) })
	var err error
	for _, sb := range b.sides {
		if err == nil {
			err = b.pb.Apply(sb.pb, nil)
		}
		_ = sb.pb.Close()
	}
	b.sides, b.grouped = b.sides[:0], false
	return err
}

// touch notes that b writes records of collID.
func (b *Batch) touch(collID uint64) {
	for _, id := range b.colls {
		if id == collID {
			return
		}
	}
	b.colls = append(b.colls, collID)
}

// scratch returns the batch's key buffer, emptied; it starts in the
// batch itself, so most keys cost no allocation.
func (b *Batch) scratch() []byte {
	if b.kb == nil {
		b.kb = b.arr[:0]
	}
	return b.kb[:0]
}

// set adds the write of value at key. The batch copies both.
func (b *Batch) set(key, value []byte) error {
	if b.st != nil {
		b.st.add(key, value)
		return nil
	}
	return b.pb.Set(key, value, nil)
}

// setIndexEntry adds the write of an entry of indexID.
func (b *Batch) setIndexEntry(indexID uint64, key, value []byte) error {
	if b.st != nil {
		b.st.add(key, value)
		return nil
	}
	return b.indexBatch(indexID).Set(key, value, nil)
}

// unstage replays the writes b staged (ingeststage.go) into its Pebble
// batch and ends the staging. They are replayed in key order, one write
// per key (the last made, which is all a set leaves): Pebble applies a
// batch to the memtable in its order, and its skiplist inserter starts
// each search from the place of the key before, so a key next to that
// one costs a step or two where a key in another range costs a search
// from the top. Staged in the order made, a bulk insert's records and
// index entries alternate ranges at every write.
func (b *Batch) unstage() error {
	st := b.st
	if st == nil {
		return nil
	}
	b.st = nil
	defer st.release()
	for _, g := range st.groups() {
		for _, e := range g {
			if err := b.pb.Set(e.key, e.value, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteRange adds the removal of every key in [lo, hi), after every
// write made before it (grouped index entries included).
func (b *Batch) deleteRange(lo, hi []byte) error {
	if err := b.unstage(); err != nil {
		return err
	}
	if err := b.mergeSides(); err != nil {
		return err
	}
	return b.pb.DeleteRange(lo, hi, nil)
}

// del adds the removal of key.
func (b *Batch) del(key []byte) error {
	if err := b.unstage(); err != nil {
		return err
	}
	return b.pb.Delete(key, nil)
}

// Len is the size of the batch's representation in bytes.
func (b *Batch) Len() int {
	n := b.pb.Len()
	if b.st != nil {
		n += b.st.bytes
	}
	for _, sb := range b.sides {
		n += sb.pb.Len() - batchHeaderLen
	}
	return n
}

// batchHeaderLen is the header every Pebble batch's representation
// starts with (its sequence number and count), which a merged side
// batch does not add.
const batchHeaderLen = 12

// Count is the number of writes in the batch.
func (b *Batch) Count() uint32 {
	n := b.pb.Count()
	if b.st != nil {
		n += uint32(len(b.st.writes))
	}
	for _, sb := range b.sides {
		n += sb.pb.Count()
	}
	return n
}

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.Count() == 0 }

// Reader returns the view of an indexed batch (DB.NewIndexedBatch): its
// writes over the latest committed state.
func (b *Batch) Reader() Reader { return pebbleReader{r: b.pb} }

// Close releases the batch without committing it. DB.Commit closes the
// batches it commits. The batch must not be used after.
func (b *Batch) Close() error {
	if b.pb == nil {
		return nil // closed already
	}
	if b.st != nil {
		b.st.release()
		b.st = nil
	}
	for _, sb := range b.sides {
		_ = sb.pb.Close()
	}
	b.sides = nil
	err := b.pb.Close()
	b.pb = nil
	return err
}

// newBatch wraps pb in a Batch. Batch values are not pooled: a holder
// that closes a batch twice (Commit closes it, and so may its owner's
// cleanup) must never close another writer's batch that reused it.
func newBatch(pb *pebble.Batch) *Batch { return &Batch{pb: pb} }

// Snapshot is a consistent point-in-time view of a DB. Close it when done.
type Snapshot struct {
	ps *pebble.Snapshot
	r  pebbleReader // Reader's, kept here so that handing it out allocates nothing
}

// Reader returns the snapshot's view.
func (s *Snapshot) Reader() Reader { return &s.r }

// Close releases the snapshot.
func (s *Snapshot) Close() error { return s.ps.Close() }

// FS is the filesystem a DB writes through (Options.FS); the zero FS is
// the operating system's.
type FS struct{ v vfs.FS }

// NewFS wraps a Pebble filesystem: tests inject I/O errors with one (the
// only files outside storage that may import Pebble, see
// TestStorageLayering).
func NewFS(v vfs.FS) FS { return FS{v} }

// MemFS is a new, empty in-memory filesystem, for tests whose many small
// databases need no files (nothing survives the process).
func MemFS() FS { return FS{vfs.NewMem()} }

// ErrNotFound is the error a missing key reads as.
var ErrNotFound = pebble.ErrNotFound
