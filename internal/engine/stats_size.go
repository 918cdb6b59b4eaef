package engine

import (
	"fmt"

	"github.com/lodedb/lode/internal/storage"
)

// Size estimates.
//
// Pebble's EstimateDiskUsage counts only sstables, so data still in the
// memtable (64 MiB) or the WAL weighs nothing, and a fresh collection
// would report storageSize and indexSizes of 0. The engine therefore also
// keeps the logical size of every key range it reports: for records, the
// document bytes (dataSize) plus one record key per document
// (storage.RecordOverhead); for each
// index, the bytes of its entries (key + type bits), maintained by the
// write path like dataSize (writeBatch.noteIndexBytes, applied on commit).
// A reported size is the larger of the two figures: the logical size while
// data is unflushed or compresses well, the disk estimate when old
// versions and tombstones not yet compacted take more room.

// noteIndexBytes records that an index entry of n bytes was set (or, with
// del, removed) in the batch.
func (t *writeBatch) noteIndexBytes(indexID uint64, n int, del bool) {
	if del {
		n = -n
	}
	t.idxDelta.add(indexID, int64(n))
}

// indexDeltas are index byte deltas by index id: a slice, not a map, as
// a write touches few indexes and notes one delta per index entry.
type indexDeltas []indexDelta

type indexDelta struct {
	id uint64
	n  int64
}

// add adds n to index id's delta.
func (d *indexDeltas) add(id uint64, n int64) {
	s := *d
	for i := range s {
		if s[i].id == id {
			s[i].n += n
			return
		}
	}
	*d = append(s, indexDelta{id, n})
}

// addIndexBytes applies committed index byte deltas; st.mu is held.
func (st *collState) addIndexBytes(d indexDeltas) {
	if !st.idxValid || len(d) == 0 {
		return
	}
	if st.idxBytes == nil {
		st.idxBytes = map[uint64]int64{}
	}
	for _, x := range d {
		st.idxBytes[x.id] += x.n
	}
}

// recountIndexes scans c's index entries to set their logical sizes;
// c.state.mu is held.
func (e *Engine) recountIndexes(c *collection) error {
	sizes := make(map[uint64]int64, len(c.Indexes))
	for _, ix := range c.Indexes {
		n, err := storage.IndexEntriesSize(e.db.Reader(), ix.ID)
		if err != nil {
			return fmt.Errorf("index %s size: %w", ix.Name, err)
		}
		sizes[ix.ID] = n
	}
	c.state.idxBytes, c.state.idxValid = sizes, true
	return nil
}

// recordsSizeEstimate is indexSizeEstimate for the records of collection
// collID.
func (e *Engine) recordsSizeEstimate(collID uint64, logical int64) (int64, error) {
	n, err := e.db.RecordsDiskUsage(collID)
	if err != nil {
		return 0, fmt.Errorf("estimating disk usage: %w", err)
	}
	return max(int64(n), logical), nil
}

// indexSizeEstimate returns the larger of Pebble's on-disk estimate of
// the entries of index indexID and their logical size.
func (e *Engine) indexSizeEstimate(indexID uint64, logical int64) (int64, error) {
	n, err := e.db.IndexSpanDiskUsage(indexID, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("estimating disk usage: %w", err)
	}
	return max(int64(n), logical), nil
}
