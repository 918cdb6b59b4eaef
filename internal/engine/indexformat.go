package engine

import (
	"context"
	"fmt"

	"github.com/lodedb/lode/internal/storage"
)

// Index key formats, recorded per index in the catalog entry.
const (
	// keyFormatCrossProduct: compound multikey keys were the cross product
	// of every field's values, and an array element lacking the indexed
	// subfield produced no key. Catalog entries without a keyFormat field
	// use it.
	keyFormatCrossProduct = 1
	// keyFormatElementWise: MongoDB's element-by-element generation
	// (indexkeys.go).
	keyFormatElementWise = 2

	keyFormatCurrent = keyFormatElementWise
)

// needsKeyRebuild reports whether an index built with an older key format
// may hold other keys than the current format generates: only arrays met
// before the end of a field's path (a multikey path that is a strict
// prefix of an indexed field) make the formats differ. An index whose
// arrays all sit at the end of its paths, or that never met an array, has
// the same keys in both.
func needsKeyRebuild(ix *index) bool {
	if ix.keyFormat >= keyFormatCurrent || !ix.multikey {
		return false
	}
	if len(ix.multikeyPaths) == 0 {
		return true // no path information: assume the worst
	}
	for _, m := range ix.multikeyPaths {
		for _, f := range ix.fields {
			if len(f.path) > len(m) && f.path[:len(m)] == m && f.path[len(m)] == '.' {
				return true
			}
		}
	}
	return false
}

// upgradeIndexKeys runs at open, before any client: it rebuilds the
// indexes whose keys an older format generated differently, and records
// the current format on the others.
func (e *Engine) upgradeIndexKeys() error {
	cat := e.cat.Load()
	for _, db := range cat.sortedDBNames() {
		for _, c := range cat.dbs[db] {
			if err := e.upgradeCollectionKeys(c.db, c.name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Engine) upgradeCollectionKeys(db, name string) error {
	c := e.cat.Load().lookup(db, name)
	old := false
	for i, ix := range c.indexes {
		if ix.keyFormat >= keyFormatCurrent {
			continue
		}
		old = true
		if needsKeyRebuild(ix) {
			if err := e.rebuildIndexKeys(db, name, i); err != nil {
				// Keep the old entries: they are a superset of what the
				// planner's bounds need for all but null lookups.
				e.log.Error("cannot rebuild index with the current key format; keeping the old keys",
					"ns", c.ns(), "index", ix.name, "err", err)
			}
		}
	}
	if !old {
		return nil
	}
	c = e.cat.Load().lookup(db, name)
	n := c.copyMeta()
	for i, ix := range n.indexes {
		if ix.keyFormat < keyFormatCurrent && !needsKeyRebuild(ix) {
			cp := *ix
			cp.keyFormat = keyFormatCurrent
			n.indexes[i] = &cp
		}
	}
	b := e.db.NewBatch()
	if err := storage.SetCollectionEntry(b, n.id, encodeCollection(n)); err != nil {
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
	old := c.indexes[i]
	fresh := *old
	fresh.id = e.allocID()
	fresh.keyFormat = keyFormatCurrent
	fresh.multikey, fresh.multikeyPaths = false, nil
	e.log.Info("rebuilding index built with an older key format", "ns", c.ns(), "index", old.name)
	n := c.copyMeta()
	n.indexes[i] = &fresh
	clearRange := func(id uint64) error {
		b := e.db.NewBatch()
		_ = storage.DeleteIndexEntries(b, id)
		_, err := e.db.Commit(b)
		return err
	}
	// An interrupted earlier attempt may have left entries under this id.
	if err := clearRange(fresh.id); err != nil {
		return err
	}
	c.state.mu.Lock()
	err := e.buildIndex(context.Background(), n, i)
	if err == nil {
		delete(c.state.idxBytes, old.id)
	}
	c.state.mu.Unlock()
	if err != nil {
		if cerr := clearRange(fresh.id); cerr != nil {
			e.log.Error("cleaning up failed index rebuild", "index", old.name, "err", cerr)
		}
		return err
	}
	return clearRange(old.id)
}
