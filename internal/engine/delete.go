package engine

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/storage"
)

// Delete runs a delete batch against db.coll.
func (e *Engine) Delete(ctx context.Context, db, coll string, specs []DeleteSpec, opts WriteOptions) (DeleteResult, error) {
	var res DeleteResult
	if err := e.checkOpen(); err != nil {
		return res, err
	}
	if err := ValidateNamespace(db, coll); err != nil {
		return res, err
	}
	var lastSeq uint64
	for i, s := range specs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		n, seq, err := e.deleteStatement(ctx, db, coll, s)
		lastSeq = max(lastSeq, seq)
		if err == nil {
			res.N += n // a failed statement counts nothing, as in mongod
		}
		if err != nil {
			var me *errs.Error
			if !errors.As(err, &me) {
				return res, err
			}
			res.WriteErrors = append(res.WriteErrors, WriteError{Index: i, Err: me})
			if opts.Ordered {
				break
			}
		}
	}
	if err := e.waitDurable(ctx, lastSeq, opts.Journal); err != nil {
		return res, err
	}
	return res, nil
}

func (e *Engine) deleteStatement(ctx context.Context, db, coll string, s DeleteSpec) (int, uint64, error) {
	filter := s.Filter
	if filter == nil {
		filter = emptyDoc
	}
	epc, vars, err := bindVars(s.Let, nil, time.Now())
	if err != nil {
		return 0, 0, err
	}
	f, err := query.ParseWithVars(filter, epc, vars)
	if err != nil {
		return 0, 0, err
	}
	if s.Limit == 1 {
		c, err := e.lockCollCtx(ctx, db, coll, false)
		if err != nil || c == nil {
			return 0, 0, err
		}
		defer c.state.mu.Unlock()
		t := e.newTxnCtx(ctx, c)
		defer t.abort()
		n, err := deleteFirstLocked(e, t, filter, f, nil, s.Hint)
		if err != nil {
			return 0, 0, err
		}
		if err := t.commit(); err != nil {
			return 0, 0, err
		}
		return n, t.lastSeq, nil
	}
	return e.deleteMany(ctx, db, coll, filter, f, s.Hint)
}

// deleteFirstLocked removes the first document matching f (by sortBy when
// given, planned with hint) from the current state. It returns how many it
// removed (0 or 1).
func deleteFirstLocked(e *Engine, t *writeTxn, filterDoc bsoncore.Document, f *query.Filter, sortBy *query.Sort, hint bsoncore.Value) (int, error) {
	rid, doc, _, found, err := t.e.findFirstLocked(t.reader(), t.c, filterDoc, f, sortBy, hint, t.emptyRangesFor())
	if err != nil || !found {
		return 0, err
	}
	if err := t.remove(rid, doc); err != nil {
		return 0, err
	}
	return 1, nil
}

// findFirstLocked returns the first match of f in the current state of c:
// the least by sortBy when given, else the first in scan order, planned
// with hint (zero Value: none).
// empty are the statement's known-empty index ranges (nil: none).
func (e *Engine) findFirstLocked(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, sortBy *query.Sort, hint bsoncore.Value, empty exec.EmptyRanges) (uint64, bsoncore.Document, int, bool, error) {
	var (
		bestID  uint64
		bestDoc bsoncore.Document
		bestPos int
		found   bool
	)
	// The planner returns matches in sortBy order: the first is the one.
	err := e.scanMatchesSorted(r, c, filterDoc, f, sortBy, hint, empty, func(rid uint64, doc []byte, pos int) bool {
		bestID, bestPos, found = rid, pos, true
		bestDoc = append(bestDoc[:0], doc...)
		return false
	})
	return bestID, bestDoc, bestPos, found, err
}

// deleteMany removes every match: ids from a snapshot, then chunks under
// the writer lock with each document re-read and re-checked.
func (e *Engine) deleteMany(ctx context.Context, db, coll string, filter bsoncore.Document, f *query.Filter, hint bsoncore.Value) (int, uint64, error) {
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return 0, 0, nil
	}
	snap, release := e.snapshotCtx(ctx)
	var ids []uint64
	err := e.scanMatches(snap, c, filter, f, hint, func(rid uint64, _ []byte, _ int) bool {
		ids = append(ids, rid)
		return true
	})
	release()
	if err != nil || len(ids) == 0 {
		return 0, 0, err
	}
	n := 0
	var lastSeq uint64
	var buf []byte
	for len(ids) > 0 {
		lc, err := e.lockCollCtx(ctx, db, coll, false)
		if err != nil || lc == nil || lc.id != c.id {
			if lc != nil {
				lc.state.mu.Unlock()
			}
			return n, lastSeq, err
		}
		t := e.newTxnCtx(ctx, lc)
		var stmtErr error
		for len(ids) > 0 && !t.full() {
			rid := ids[0]
			ids = ids[1:]
			doc, found, err := storage.GetRecord(t.reader(), lc.id, rid, buf[:0])
			if err != nil {
				stmtErr = err
				break
			}
			buf = doc
			if !found || !f.Match(doc) {
				continue
			}
			if err := t.remove(rid, doc); err != nil {
				stmtErr = err
				break
			}
			n++
		}
		cerr := t.commit()
		t.abort()
		lc.state.mu.Unlock()
		lastSeq = max(lastSeq, t.lastSeq)
		if cerr != nil {
			return n, lastSeq, cerr
		}
		if stmtErr != nil {
			return n, lastSeq, stmtErr
		}
		if err := ctx.Err(); err != nil {
			return n, lastSeq, err
		}
	}
	return n, lastSeq, nil
}
