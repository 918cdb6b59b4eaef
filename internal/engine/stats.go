package engine

import (
	"fmt"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/storage"
)

// CollectionStats returns the size figures of db.coll. The document count,
// data size and index entry sizes are kept in memory; the first call after
// Open computes them with one scan. Storage and index sizes are estimates
// that are never 0 for non-empty data (see stats_size.go).
func (e *Engine) CollectionStats(db, coll string) (CollectionStats, error) {
	if e.isOplog(db, coll) {
		return e.oplogStats() // oplogcoll.go
	}
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
	if !c.state.idxValid {
		if err := e.recountIndexes(c); err != nil {
			c.state.mu.Unlock()
			return st, err
		}
	}
	st.Count, st.Size = c.state.count, c.state.dataSize
	logical := make([]int64, len(c.Indexes))
	for i, ix := range c.Indexes {
		logical[i] = c.state.idxBytes[ix.ID]
	}
	c.state.mu.Unlock()
	if st.StorageSize, err = e.recordsSizeEstimate(c.ID, st.Size+st.Count*storage.RecordOverhead); err != nil {
		return st, fmt.Errorf("storage size of %s.%s: %w", db, coll, err)
	}
	st.IndexSizes = make(map[string]int64, len(c.Indexes))
	for i, ix := range c.Indexes {
		if ix.Clustered {
			// The records are its entries: mongod counts it among no
			// index figures (it is not in its index catalog).
			continue
		}
		st.NIndexes++
		n, err := e.indexSizeEstimate(ix.ID, logical[i])
		if err != nil {
			return st, fmt.Errorf("size of index %s of %s.%s: %w", ix.Name, db, coll, err)
		}
		st.IndexSizes[ix.Name] = n
		st.TotalIndexSize += n
	}
	st.Capped, st.Max, st.MaxSize = c.Capped, c.Max, c.Size
	return st, nil
}

// recount scans c's records to set its count and size; c.state.mu is held.
func (e *Engine) recount(c *collection) error {
	cur, err := openRecords(e.db.Reader(), c)
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
	c.state.docCount.Store(n)
	return nil
}

// DatabaseSize returns the estimated storage and index bytes of db (the
// sum of its collections' storageSize and totalIndexSize).
func (e *Engine) DatabaseSize(db string) int64 {
	var total int64
	for _, c := range e.cat.Load().dbs[db] {
		st, err := e.CollectionStats(c.DB, c.Name)
		if err != nil {
			continue // dropped meanwhile
		}
		total += st.StorageSize + st.TotalIndexSize
	}
	return total
}

// FSUsage is the used and total bytes of the filesystem holding the
// data directory; ok is false when it cannot say.
func (e *Engine) FSUsage() (used, total uint64, ok bool) { return e.db.FSUsage() }
