package engine

import (
	"context"

	"github.com/lodedb/lode/internal/errs"
)

// DDL inside multi-document transactions (MongoDB 7.0 rules).
//
// A collection created inside a transaction (explicitly with create, or
// implicitly by a write or createIndexes) is published in the catalog at
// once, but belongs to the transaction until it ends (collState.txnOwner):
// writes and index builds from anyone else fail with WriteConflict, and if
// the transaction aborts the collection is dropped with everything built
// on it. Indexes can be created inside a transaction only on such a
// collection while it is empty in the transaction's view. Writes to capped
// collections inside a transaction are refused.

// noteCreated records that tx created c.
func (tx *Txn) noteCreated(c *collection) { tx.created = append(tx.created, c) }

// endCreated releases the collections tx created: on commit they become
// ordinary collections, on abort they are dropped.
func (tx *Txn) endCreated(commit bool) {
	created := tx.created
	tx.created = nil
	for _, c := range created {
		st := c.state
		st.mu.Lock()
		if st.txnOwner != tx {
			st.mu.Unlock()
			continue
		}
		st.txnOwner = nil
		st.uncommitted.Store(nil)
		if !commit && !st.dropped {
			if cur := tx.e.cat.Load().lookup(c.DB, c.Name); cur != nil && cur.state == st {
				if err := tx.e.dropLocked(cur); err != nil {
					tx.e.log.Error("dropping a collection created by an aborted transaction", "ns", c.NS(), "err", err)
				}
			}
		}
		st.mu.Unlock()
	}
}

// lockCollCtx is lockColl for a write statement running with ctx: inside a
// transaction a collection it creates belongs to the transaction, and the
// write is refused on a collection another transaction owns (WriteConflict)
// or, inside a transaction, on a capped collection (263).
func (e *Engine) lockCollCtx(ctx context.Context, db, coll string, create bool) (*collection, error) {
	tx := TxnFrom(ctx)
	c, err := e.lockCollTx(tx, db, coll, create)
	if err != nil || c == nil {
		return c, err
	}
	if err := checkTxnWrite(tx, c); err != nil {
		c.state.mu.Unlock()
		return nil, err
	}
	return c, nil
}

// checkTxnWrite applies the ownership and capped rules to a write of tx
// (nil outside a transaction) on c. The caller holds c.state.mu.
func checkTxnWrite(tx *Txn, c *collection) error {
	if owner := c.state.txnOwner; owner != nil && owner != tx {
		if tx == nil {
			return errs.New(errs.WriteConflict, "Write conflict: collection %s is being created by an uncommitted transaction. Please retry your operation.", c.NS())
		}
		e := conflictError()
		if tx.failed == nil {
			tx.failed = e
		}
		return e
	}
	if tx != nil && c.Capped {
		return errs.New(errs.OperationNotSupportedInTransaction, "Collection '%s' is a capped collection. Writes in transactions are not allowed on capped collections.", c.NS())
	}
	return nil
}

// checkTxnIndexBuild applies MongoDB 7.0's createIndexes rules inside
// transaction tx: only on a collection tx created, and only while it is
// empty in tx's view. The caller holds c.state.mu.
func (e *Engine) checkTxnIndexBuild(tx *Txn, c *collection) error {
	if c.state.txnOwner != tx {
		return errs.New(errs.OperationNotSupportedInTransaction, "Cannot create new indexes on existing collection %s in a multi-document transaction.", c.NS())
	}
	cur, err := openRecords(tx.view, c)
	if err != nil {
		return err
	}
	defer cur.Close()
	if _, _, ok := cur.Next(); ok {
		return errs.New(errs.OperationNotSupportedInTransaction, "Cannot create new indexes on non-empty collection %s in a multi-document transaction.", c.NS())
	}
	return cur.Err()
}

// collFor returns the statistics record of collection id in tx, or nil
// (also for a nil tx).
func (tx *Txn) collFor(id uint64) *txnColl {
	if tx == nil {
		return nil
	}
	return tx.colls[id]
}
