package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/opstats"
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
	if err := checkNotOplog(db, coll); err != nil {
		return res, err
	}
	var err error
	res.WriteErrors, err = e.runStatements(ctx, len(specs), opts, func(i int) (uint64, error) {
		n, seq, err := e.deleteStatement(ctx, db, coll, specs[i])
		if err == nil {
			res.N += n // a failed statement counts nothing, as in mongod
		}
		return seq, err
	})
	return res, err
}

func (e *Engine) deleteStatement(ctx context.Context, db, coll string, s DeleteSpec) (int, uint64, error) {
	collator, err := e.statementCollator(db, coll, s.Collation)
	if err != nil {
		return 0, 0, err
	}
	filter, f, err := parseFilter(ctx, s.Filter, s.Let, collator)
	if err != nil {
		return 0, 0, err
	}
	if s.Limit == 1 {
		c, err := e.lockCollCtx(ctx, db, coll, false)
		if err != nil || c == nil {
			return 0, 0, err
		}
		defer c.state.mu.Unlock()
		t := e.newWriteBatchCtx(ctx, c)
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
func deleteFirstLocked(e *Engine, t *writeBatch, filterDoc bsoncore.Document, f *query.Filter, sortBy *query.Sort, hint bsoncore.Value) (int, error) {
	rid, doc, _, found, err := t.e.findFirstLocked(t.reader(), t.c, filterDoc, f, sortBy, hint, t.emptyRangesFor(), t.st)
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
func (e *Engine) findFirstLocked(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, sortBy *query.Sort, hint bsoncore.Value, empty exec.EmptyRanges, st *opstats.Stats) (uint64, bsoncore.Document, int, bool, error) {
	var (
		bestID  uint64
		bestDoc bsoncore.Document
		bestPos int
		found   bool
	)
	// The planner returns matches in sortBy order: the first is the one.
	err := e.scanMatchesSorted(r, c, filterDoc, f, sortBy, true, hint, empty, st, func(rid uint64, doc []byte, pos int) bool {
		bestID, bestPos, found = rid, pos, true
		bestDoc = append(bestDoc[:0], doc...)
		return false
	})
	return bestID, bestDoc, bestPos, found, err
}

// deleteMany removes every match through writeMatches.
func (e *Engine) deleteMany(ctx context.Context, db, coll string, filter bsoncore.Document, f *query.Filter, hint bsoncore.Value) (int, uint64, error) {
	n := 0
	lastSeq, err := e.writeMatches(ctx, db, coll, filter, f, hint, false, func(t *writeBatch, rid uint64, doc []byte, _ int) (bool, error) {
		if err := t.remove(rid, doc); err != nil {
			return false, err
		}
		n++
		return false, nil
	})
	return n, lastSeq, err
}
