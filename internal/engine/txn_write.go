package engine

import (
	"context"
	"fmt"

	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/storage"
)

// newWriteBatchCtx returns the write batch of a statement on c: inside a
// multi-document transaction (carried by ctx) it writes into the
// transaction's batch, otherwise into a fresh batch committed by the
// statement.
func (e *Engine) newWriteBatchCtx(ctx context.Context, c *collection) *writeBatch {
	tx := TxnFrom(ctx)
	if tx == nil {
		t := e.newWriteBatch(c)
		t.bypass = bypassFrom(ctx)
		t.st = opstats.From(ctx)
		t.rec = recorderFrom(ctx)
		return t
	}
	if _, ok := tx.colls[c.ID]; !ok {
		tx.colls[c.ID] = newTxnColl(c)
	}
	t := &writeBatch{e: e, c: c, b: tx.b, tx: tx, bypass: bypassFrom(ctx), st: opstats.From(ctx)}
	t.takeScratch()
	return t
}

// reader returns what t's unique checks and re-reads see.
func (t *writeBatch) reader() storage.Reader {
	if t.tx != nil {
		return t.tx.view
	}
	return t.e.db.Reader()
}

// claimRecord claims record rid of t's collection in the conflict table.
func (t *writeBatch) claimRecord(rid uint64) error {
	var kb [32]byte // room for the lock key without allocating
	return t.claim(storage.AppendRecordLockKey(kb[:0], t.c.ID, storage.RecordID(rid)))
}

// claim checks key against concurrent writers: inside a transaction it
// takes ownership of the key (or fails with WriteConflict); outside, it
// fails when an open transaction holds the key and remembers the key so
// that transactions which began earlier conflict on it after commit.
func (t *writeBatch) claim(key []byte) error {
	if t.tx != nil {
		if err := t.e.txns.claim(t.tx, key); err != nil {
			if t.tx.failed == nil {
				t.tx.failed = err
			}
			return err
		}
		return nil
	}
	if err := t.e.txns.check(key); err != nil {
		return err
	}
	t.touched = append(t.touched, key...)
	t.touchedEnds = append(t.touchedEnds, len(t.touched))
	return nil
}

// noteCommitted publishes the keys of a committed plain write to the
// conflict table.
func (t *writeBatch) noteCommitted() {
	if len(t.touchedEnds) > 0 {
		t.e.txns.committed(t.touched, t.touchedEnds)
		t.touched, t.touchedEnds = t.touched[:0], t.touchedEnds[:0]
	}
}

// commitInTxn ends a statement's part of a transaction: the changes stay
// in the transaction's batch, statistics wait for the commit, and a
// multikey change of an index is committed at once (marking an index
// multikey early is harmless).
func (t *writeBatch) commitInTxn() error {
	t.probe.Close()
	tc := t.tx.colls[t.c.ID]
	if tc == nil {
		tc = newTxnColl(t.c)
		t.tx.colls[t.c.ID] = tc
	}
	tc.countDelta += t.countDelta
	tc.sizeDelta += t.sizeDelta
	for _, x := range t.idxDelta {
		tc.idxDelta.add(x.id, x.n)
	}
	t.countDelta, t.sizeDelta = 0, 0
	t.idxDelta = t.idxDelta[:0]
	t.docs = 0
	clear(t.removed)
	t.pending.reset()
	t.tx.keepOps(t.ops)
	clear(t.ops)
	t.ops = t.ops[:0]
	if t.metaDirty || t.spanDirty {
		span := t.spanToStore() // bucketspan.go
		t.spanDirty = false
		b := t.e.db.NewBatch()
		if err := storage.SetCollectionEntry(b, t.c.ID, encodeCollection(t.c)); err != nil {
			b.Close()
			return fmt.Errorf("catalog update: %w", err)
		}
		if _, err := t.e.db.Commit(b); err != nil {
			return err
		}
		t.spanStored(span)
		if t.metaDirty {
			t.e.publish(t.c)
			t.metaDirty = false
		}
	}
	return nil
}

// indexesAt returns c as a snapshot holding every commit up to seq plans
// it: without the indexes whose build ended after (a hint naming one is
// then an unknown index, as at that point in time).
func indexesAt(c *collection, seq uint64) *collection {
	if c == nil {
		return nil
	}
	late := false
	for _, ix := range c.Indexes {
		late = late || ix.VisibleFrom > seq
	}
	if !late {
		return c
	}
	n := c.copyMeta()
	n.Indexes = n.Indexes[:0]
	for _, ix := range c.Indexes {
		if ix.VisibleFrom <= seq {
			n.Indexes = append(n.Indexes, ix)
		}
	}
	return n
}

// snapshotOf returns the stable view a read planned over c's indexes
// takes (the transaction's inside one, the held snapshot of a snapshot
// read, else a new snapshot; call release when done) and c as that view
// sees it. An index drop publishes the
// catalog without the index before it deletes the index's entries
// (DropIndex), and an index build publishes the index after its entries
// are committed, so a snapshot taken while the catalog shows the same c
// before and after agrees with c's indexes; when a publish came between,
// the read takes a new snapshot with the newer c. (A dropped collection
// keeps its last c: its reads find nothing.) Inside a transaction or at
// a held snapshot the view is the one the read is bound to, and c loses
// the indexes built after it (indexesAt).
func (e *Engine) snapshotOf(ctx context.Context, c *collection) (storage.Reader, func(), *collection) {
	if tx := TxnFrom(ctx); tx != nil {
		return tx.view, func() {}, indexesAt(c, tx.snapSeq)
	}
	if r, release, seq := e.readSnapFrom(ctx); r != nil { // readsnap.go
		return r, release, indexesAt(c, seq)
	}
	for {
		snap := e.db.NewSnapshot()
		if c == nil || c == e.oplogColl {
			return snap.Reader(), func() { snap.Close() }, c
		}
		cur := e.cat.Load().lookup(c.DB, c.Name)
		if cur == c || cur == nil {
			return snap.Reader(), func() { snap.Close() }, c
		}
		snap.Close()
		c = cur
	}
}
