package engine

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/query"
)

// runStatements runs the n statements of an update or delete batch in
// order: run executes statement i and returns the sequence number of its
// last commit. A statement's *errs.Error becomes its write error, and an
// ordered batch stops at the first, as in mongod; any other error (or a
// done ctx between statements) ends the batch and is returned with the
// write errors so far. At the end it waits for the batch's commits to be
// durable as opts.Journal asks.
func (e *Engine) runStatements(ctx context.Context, n int, opts WriteOptions, run func(i int) (uint64, error)) ([]WriteError, error) {
	e.db.BeginWrite(opts.Journal) // the durability wait gathers the commits of others (storage/sync.go)
	defer e.db.EndWrite(opts.Journal)
	var werrs []WriteError
	var lastSeq uint64
	rec := recorderFrom(ctx)
	if TxnFrom(ctx) != nil {
		rec = nil
	}
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return werrs, err
		}
		if rec != nil && rec.Begin(i) {
			continue // ran in an earlier attempt of this retryable write
		}
		seq, err := run(i)
		lastSeq = max(lastSeq, seq)
		if err != nil {
			var me *errs.Error
			// An interruption (the deadline, killOp, a disconnect) fails
			// the whole batch, as in mongod's handleError, rather than
			// being one statement's write error.
			if !errors.As(err, &me) || me.Code == errs.MaxTimeMSExpired || ctx.Err() != nil {
				return werrs, err
			}
			werrs = append(werrs, WriteError{Index: i, Err: me})
			if opts.Ordered {
				break
			}
		}
	}
	return werrs, e.waitDurable(ctx, lastSeq, opts.Journal)
}

// docWrite is the per-document step of a multi-document update or delete:
// it writes the change of the matching document doc (record rid, pos the
// positional match) into batch t. kept reports whether t holds on to
// doc's bytes until it commits, so that they cannot be reused for the
// next document.
type docWrite func(t *writeBatch, rid uint64, doc []byte, pos int) (kept bool, err error)

// writeMatches is the loop of a multi-document update or delete. It
// collects the record ids of f's matches in db.coll from a snapshot first,
// so that no document is visited twice, then works through them in
// chunks, one write batch each under the collection's writer lock:
// each document is re-read and f re-checked against its current version
// (with the positional match when positional is set) before write runs.
// It stops at the first error, at the end of the chunk in which ctx is
// done, and when the collection is dropped or replaced; it returns the
// sequence number of the last commit.
func (e *Engine) writeMatches(ctx context.Context, db, coll string, filterDoc bsoncore.Document, f *query.Filter, hint bsoncore.Value, positional bool, write docWrite) (uint64, error) {
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return 0, nil
	}
	snap, release, c := e.snapshotOf(ctx, c)
	var ids []uint64
	var cks [][]byte // clustered: the records' cluster keys, beside ids
	var g indexkey.Generator
	var ckErr error
	err := e.scanMatches(snap, c, filterDoc, f, hint, opstats.From(ctx), func(rid uint64, doc []byte, _ int) bool {
		ids = append(ids, rid)
		if c.Clustered {
			var ck []byte
			if ck, ckErr = clusterKeyOf(&g, c, doc, nil); ckErr != nil {
				return false
			}
			cks = append(cks, ck)
		}
		return true
	})
	if err == nil {
		err = ckErr
	}
	release()
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	var lastSeq uint64
	var buf []byte
	for len(ids) > 0 {
		lc, err := e.lockCollCtx(ctx, db, coll, false)
		if err != nil || lc == nil || lc.ID != c.ID {
			if lc != nil {
				lc.state.mu.Unlock()
			}
			return lastSeq, err
		}
		t := e.newWriteBatchCtx(ctx, lc)
		var stmtErr error
		for len(ids) > 0 && !t.full() {
			rid := ids[0]
			ids = ids[1:]
			var ck []byte
			if len(cks) > 0 {
				ck, cks = cks[0], cks[1:]
			}
			doc, rid, found, err := getRecordRef(t.reader(), lc, rid, ck, buf[:0])
			if err != nil {
				stmtErr = err
				break
			}
			buf = doc
			if !found {
				continue
			}
			matched, pos, err := f.MatchChecked(doc)
			if err != nil {
				stmtErr = err // a $expr failed: the statement fails
				break
			}
			if !positional {
				pos = -1
			}
			if !matched {
				continue
			}
			kept, err := write(t, rid, doc, pos)
			if err != nil {
				stmtErr = err
				break
			}
			if kept {
				buf = nil
			}
		}
		cerr := t.commit()
		t.abort()
		lc.state.mu.Unlock()
		lastSeq = max(lastSeq, t.lastSeq)
		if cerr != nil {
			return lastSeq, cerr
		}
		if stmtErr != nil {
			return lastSeq, stmtErr
		}
		if err := ctx.Err(); err != nil {
			return lastSeq, err
		}
	}
	return lastSeq, nil
}
