package storage

import "context"

// CompactCollection runs Pebble's manual compaction over the key ranges
// of one collection: its records (collID) and the entries of each of its
// indexes (indexIDs). Pebble flushes the memtables overlapping each range
// and rewrites its sstables, dropping deleted and overwritten versions no
// snapshot needs. It returns the estimated on-disk bytes of the ranges
// before and after (EstimateDiskUsage, sstables only); ctx cancels it
// between and within ranges.
func (db *DB) CompactCollection(ctx context.Context, collID uint64, indexIDs []uint64) (before, after uint64, err error) {
	ranges := make([][2][]byte, 0, 1+len(indexIDs))
	lo, hi := recordRange(collID)
	ranges = append(ranges, [2][]byte{lo, hi})
	for _, id := range indexIDs {
		lo, hi := indexRange(id)
		ranges = append(ranges, [2][]byte{lo, hi})
	}
	usage := func() (uint64, error) {
		var n uint64
		for _, r := range ranges {
			u, err := db.EstimateDiskUsage(r[0], r[1])
			if err != nil {
				return 0, err
			}
			n += u
		}
		return n, nil
	}
	if !db.enter() {
		return 0, 0, db.Failed()
	}
	defer db.leave()
	if before, err = usage(); err != nil {
		return 0, 0, err
	}
	for _, r := range ranges {
		if err := db.pdb.Compact(ctx, r[0], r[1], true); err != nil {
			if f := db.Failed(); f != nil {
				return 0, 0, f
			}
			return 0, 0, err
		}
	}
	after, err = usage()
	return before, after, err
}
