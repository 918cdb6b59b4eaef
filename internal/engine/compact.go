package engine

import (
	"context"

	"github.com/lodedb/lode/internal/errs"
)

// Compact runs the storage engine's manual compaction over db.coll's
// records and index entries (the compact command) and returns the bytes
// it freed on disk, as estimated before and after: 0 when the ranges grew
// (writes that were still in memory are now in the data files), as
// mongod reports no negative bytesFreed. It takes no lock; reads and
// writes go on while it runs.
func (e *Engine) Compact(ctx context.Context, db, coll string) (int64, error) {
	if err := e.checkOpen(); err != nil {
		return 0, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return 0, errs.New(errs.NamespaceNotFound, "collection does not exist")
	}
	ids := make([]uint64, len(c.Indexes))
	for i, ix := range c.Indexes {
		ids[i] = ix.ID
	}
	before, after, err := e.db.CompactCollection(ctx, c.ID, ids)
	if err != nil {
		switch ctx.Err() {
		case context.DeadlineExceeded:
			return 0, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
		case context.Canceled:
			return 0, errs.Wrap(ctx.Err(), errs.Interrupted, "operation was interrupted")
		}
		return 0, err
	}
	if after >= before {
		return 0, nil
	}
	return int64(before - after), nil
}
