package storage

import (
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
func (b *Batch) set(key, value []byte) error { return b.pb.Set(key, value, nil) }

// deleteRange adds the removal of every key in [lo, hi).
func (b *Batch) deleteRange(lo, hi []byte) error { return b.pb.DeleteRange(lo, hi, nil) }

// del adds the removal of key.
func (b *Batch) del(key []byte) error { return b.pb.Delete(key, nil) }

// Len is the size of the batch's representation in bytes.
func (b *Batch) Len() int { return b.pb.Len() }

// Count is the number of writes in the batch.
func (b *Batch) Count() uint32 { return b.pb.Count() }

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.pb.Empty() }

// Reader returns the view of an indexed batch (DB.NewIndexedBatch): its
// writes over the latest committed state.
func (b *Batch) Reader() Reader { return pebbleReader{r: b.pb} }

// Close releases the batch without committing it. DB.Commit closes the
// batches it commits. The batch must not be used after.
func (b *Batch) Close() error {
	if b.pb == nil {
		return nil // closed already
	}
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
