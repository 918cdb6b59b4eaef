package engine

import "sync/atomic"

// DocumentStats are serverStatus's metrics.document counters for writes:
// documents inserted, updated and deleted by every path (commands, TTL
// monitor, capped trimming).
type DocumentStats struct {
	Inserted int64
	Updated  int64
	Deleted  int64
}

// docCounters accumulates DocumentStats; writeBatch.commit adds to it.
type docCounters struct {
	inserted, updated, deleted atomic.Int64
}

// DocumentStats returns the write counters since Open.
func (e *Engine) DocumentStats() DocumentStats {
	return DocumentStats{
		Inserted: e.docs.inserted.Load(),
		Updated:  e.docs.updated.Load(),
		Deleted:  e.docs.deleted.Load(),
	}
}

// txnCounts are the per-batch counts a writeBatch flushes on commit.
type txnCounts struct{ ins, upd, del int64 }

func (e *Engine) addDocCounts(c *txnCounts) {
	if c.ins != 0 {
		e.docs.inserted.Add(c.ins)
	}
	if c.upd != 0 {
		e.docs.updated.Add(c.upd)
	}
	if c.del != 0 {
		e.docs.deleted.Add(c.del)
	}
	*c = txnCounts{}
}
