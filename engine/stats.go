package engine

import (
	"fmt"

	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/storage"
)

// CollectionStats returns the size figures of db.coll. The document count
// and data size are kept in memory; the first call after Open computes them
// with one scan.
func (e *Engine) CollectionStats(db, coll string) (CollectionStats, error) {
	var st CollectionStats
	c, err := e.lockColl(db, coll, false)
	if err != nil {
		return st, err
	}
	if c == nil {
		return st, errs.New(errs.NamespaceNotFound, "Collection [%s.%s] not found.", db, coll)
	}
	if !c.state.statsValid {
		if err := e.recount(c); err != nil {
			c.state.mu.Unlock()
			return st, err
		}
	}
	st.Count, st.Size = c.state.count, c.state.dataSize
	c.state.mu.Unlock()
	lo, hi := storage.RecordRange(c.id)
	if n, err := e.db.EstimateDiskUsage(lo, hi); err == nil {
		st.StorageSize = int64(n)
	}
	st.IndexSizes = make(map[string]int64, len(c.indexes))
	for _, ix := range c.indexes {
		lo, hi := storage.IndexRange(ix.id)
		n, err := e.db.EstimateDiskUsage(lo, hi)
		if err != nil {
			return st, fmt.Errorf("index size: %w", err)
		}
		st.IndexSizes[ix.name] = int64(n)
		st.TotalIndexSize += int64(n)
	}
	st.NIndexes = len(c.indexes)
	st.Capped, st.Max, st.MaxSize = c.capped, c.max, c.size
	return st, nil
}

// recount scans c's records to set its count and size; c.state.mu is held.
func (e *Engine) recount(c *collection) error {
	cur, err := storage.NewRecordCursor(e.db.Reader(), c.id, false)
	if err != nil {
		return err
	}
	defer cur.Close()
	var n, size int64
	for _, doc, ok := cur.Next(); ok; _, doc, ok = cur.Next() {
		n++
		size += int64(len(doc))
	}
	if err := cur.Err(); err != nil {
		return err
	}
	c.state.count, c.state.dataSize, c.state.statsValid = n, size, true
	return nil
}

// collDiskSize estimates the on-disk bytes of c's records and indexes.
func (e *Engine) collDiskSize(c *collection) int64 {
	lo, hi := storage.RecordRange(c.id)
	total, _ := e.db.EstimateDiskUsage(lo, hi)
	for _, ix := range c.indexes {
		lo, hi := storage.IndexRange(ix.id)
		n, _ := e.db.EstimateDiskUsage(lo, hi)
		total += n
	}
	return int64(total)
}

// DatabaseSize returns the estimated on-disk bytes of db.
func (e *Engine) DatabaseSize(db string) int64 {
	var total int64
	for _, c := range e.cat.Load().dbs[db] {
		total += e.collDiskSize(c)
	}
	return total
}
