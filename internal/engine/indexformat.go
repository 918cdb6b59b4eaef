package engine

import (
	"context"
	"fmt"

	"github.com/lodedb/lode/internal/storage"
)

// upgradeIndexKeys runs at open, before any client: it rebuilds the
// indexes whose keys an older format generated differently, and records
// the current format on the others.
func (e *Engine) upgradeIndexKeys() error {
	cat := e.cat.Load()
	for _, db := range cat.sortedDBNames() {
		for _, c := range cat.dbs[db] {
			if err := e.upgradeCollectionKeys(c.DB, c.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Engine) upgradeCollectionKeys(db, name string) error {
	c := e.cat.Load().lookup(db, name)
	old := false
	for i, ix := range c.Indexes {
		if ix.KeyFormat >= keyFormatCurrent {
			continue
		}
		old = true
		if ix.NeedsKeyRebuild() {
			if err := e.rebuildIndexKeys(db, name, i); err != nil {
				// Keep the old entries: they are a superset of what the
				// planner's bounds need for all but null lookups.
				e.log.Error("cannot rebuild index with the current key format; keeping the old keys",
					"ns", c.NS(), "index", ix.Name, "err", err)
			}
		}
	}
	if !old {
		return nil
	}
	c = e.cat.Load().lookup(db, name)
	n := c.copyMeta()
	for i, ix := range n.Indexes {
		if ix.KeyFormat < keyFormatCurrent && !ix.NeedsKeyRebuild() {
			cp := *ix
			cp.KeyFormat = keyFormatCurrent
			n.Indexes[i] = &cp
		}
	}
	b := e.db.NewBatch()
	if err := storage.SetCollectionEntry(b, n.ID, encodeCollection(n)); err != nil {
		return fmt.Errorf("catalog update: %w", err)
	}
	if _, err := e.db.Commit(b); err != nil {
		return err
	}
	e.publish(n)
	return nil
}

// rebuildIndexKeys builds index i of db.name again under a fresh id with
// the current key format, then drops the old entries. Until the new build
// is published the catalog names the old index, so a crash midway leaves
// it to be rebuilt at the next open.
func (e *Engine) rebuildIndexKeys(db, name string, i int) error {
	c := e.cat.Load().lookup(db, name)
	old := c.Indexes[i]
	fresh := *old
	fresh.ID = e.allocID()
	fresh.KeyFormat = keyFormatCurrent
	fresh.Multikey, fresh.MultikeyPaths = false, nil
	e.log.Info("rebuilding index built with an older key format", "ns", c.NS(), "index", old.Name)
	n := c.copyMeta()
	n.Indexes[i] = &fresh
	clearRange := func(id uint64) error {
		b := e.db.NewBatch()
		_ = storage.DeleteIndexEntries(b, id)
		_, err := e.db.Commit(b)
		return err
	}
	// An interrupted earlier attempt may have left entries under this id.
	if err := clearRange(fresh.ID); err != nil {
		return err
	}
	c.state.mu.Lock()
	err := e.buildIndexes(context.Background(), n, []int{i})
	if err == nil {
		delete(c.state.idxBytes, old.ID)
	}
	c.state.mu.Unlock()
	if err != nil {
		if cerr := clearRange(fresh.ID); cerr != nil {
			e.log.Error("cleaning up failed index rebuild", "index", old.Name, "err", cerr)
		}
		return err
	}
	return clearRange(old.ID)
}
