package engine

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/storage"
	"github.com/lodedb/lode/internal/update"
)

// stmtResult is the outcome of one update statement.
type stmtResult struct {
	n, nModified int
	upserted     bsoncore.Value
	// pre and post images of the single document a findAndModify touched.
	pre, post bsoncore.Document
	pos       int
}

// Update runs an update batch against db.coll.
func (e *Engine) Update(ctx context.Context, db, coll string, specs []UpdateSpec, opts WriteOptions) (UpdateResult, error) {
	var res UpdateResult
	if err := e.checkOpen(); err != nil {
		return res, err
	}
	if err := validateWrite(db, coll, opts); err != nil {
		return res, err
	}
	var lastSeq uint64
	for i, s := range specs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		r, seq, err := e.updateStatement(ctx, db, coll, s)
		lastSeq = max(lastSeq, seq)
		if err == nil {
			// As in mongod, a statement that fails adds nothing to n or
			// nModified, even when a multi update changed some documents
			// before the error.
			res.N += r.n
			res.NModified += r.nModified
			if r.upserted.Type != 0 {
				res.Upserted = append(res.Upserted, Upserted{Index: i, ID: r.upserted})
			}
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

func (e *Engine) updateStatement(ctx context.Context, db, coll string, s UpdateSpec) (stmtResult, uint64, error) {
	p, err := parseUpdate(updateArgs{
		filter: s.Filter, upd: s.Update, arrayFilters: s.ArrayFilters, multi: s.Multi, upsert: s.Upsert,
		hint: s.Hint, let: s.Let, constants: s.Constants,
	})
	if err != nil {
		return stmtResult{}, 0, err
	}
	if p.multi && !p.upsert {
		return e.updateMany(ctx, db, coll, p)
	}
	c, err := e.lockCollCtx(ctx, db, coll, p.upsert)
	if err != nil {
		return stmtResult{}, 0, err
	}
	if c == nil {
		return stmtResult{}, 0, nil
	}
	defer c.state.mu.Unlock()
	t := e.newTxnCtx(ctx, c)
	defer t.abort()
	r, err := e.updateLocked(ctx, t, p, nil)
	if cerr := t.commit(); cerr != nil {
		return stmtResult{}, 0, cerr
	}
	return r, t.lastSeq, err
}

// updateLocked runs p against the current state of t's collection with the
// writer lock held: the first match (by sortBy when given, else natural
// order), or every match when multi; upserts when nothing matched.
func (e *Engine) updateLocked(ctx context.Context, t *writeTxn, p *parsedUpdate, sortBy *query.Sort) (stmtResult, error) {
	var r stmtResult
	var ids []uint64
	var docs []bsoncore.Document
	var poss []int
	// The planner returns matches in sortBy order: the first is the one.
	if p.multi {
		sortBy = nil
	}
	err := scanMatchesSorted(t.reader(), t.c, p.filterDoc, p.filter, sortBy, p.hint, t.emptyRangesFor(), func(rid uint64, doc []byte, pos int) bool {
		ids = append(ids, rid)
		docs = append(docs, append([]byte(nil), doc...))
		poss = append(poss, pos)
		return p.multi
	})
	if err != nil {
		return r, err
	}
	now := time.Now()
	for i, rid := range ids {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		r.n++
		out, modified, err := p.apply(ctx, docs[i], update.ApplyOptions{Pos: poss[i], Now: now})
		if err != nil {
			return r, err
		}
		r.pre, r.post, r.pos = docs[i], out, poss[i]
		if !modified {
			continue
		}
		if err := t.update(rid, docs[i], out); err != nil {
			return r, err
		}
		r.nModified++
		if t.full() {
			if err := t.commit(); err != nil {
				return r, err
			}
		}
	}
	if r.n > 0 || !p.upsert {
		return r, nil
	}
	doc, err := p.upsertDoc(ctx, now)
	if err != nil {
		return r, err
	}
	if _, err := t.insert(doc); err != nil {
		return r, err
	}
	r.n = 1
	r.upserted = doc.Lookup("_id")
	r.post = doc
	return r, nil
}

// updateMany runs a multi update: it collects the matching record ids from
// a snapshot first (so no document is visited twice), then updates them
// in chunks under the writer lock, re-reading each document and re-checking
// the filter against its current version.
func (e *Engine) updateMany(ctx context.Context, db, coll string, p *parsedUpdate) (stmtResult, uint64, error) {
	var r stmtResult
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return r, 0, nil
	}
	snap, release := e.snapshotCtx(ctx)
	var ids []uint64
	err := scanMatches(snap, c, p.filterDoc, p.filter, p.hint, func(rid uint64, _ []byte, _ int) bool {
		ids = append(ids, rid)
		return true
	})
	release()
	if err != nil || len(ids) == 0 {
		return r, 0, err
	}
	now := time.Now()
	var lastSeq uint64
	var buf []byte
	for len(ids) > 0 {
		lc, err := e.lockCollCtx(ctx, db, coll, false)
		if err != nil || lc == nil || lc.id != c.id {
			if lc != nil {
				lc.state.mu.Unlock()
			}
			return r, lastSeq, err
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
			if !found {
				continue
			}
			ok, pos := p.filter.MatchPositional(doc)
			if !ok {
				continue
			}
			r.n++
			out, modified, err := p.apply(ctx, doc, update.ApplyOptions{Pos: pos, Now: now})
			if err != nil {
				stmtErr = err
				break
			}
			if modified {
				if err := t.update(rid, doc, out); err != nil {
					stmtErr = err
					break
				}
				r.nModified++
				buf = nil // doc is referenced by the batch until commit
			} else {
				buf = doc
			}
		}
		cerr := t.commit()
		t.abort()
		lc.state.mu.Unlock()
		lastSeq = max(lastSeq, t.lastSeq)
		if cerr != nil {
			return r, lastSeq, cerr
		}
		if stmtErr != nil {
			return r, lastSeq, stmtErr
		}
		if err := ctx.Err(); err != nil {
			return r, lastSeq, err
		}
	}
	return r, lastSeq, nil
}

// scanMatches calls fn with every document of c matching f in r, with the
// positional match index, until fn returns false. hint is the statement's
// index hint (zero Value: none). doc is valid only during the call.
func scanMatches(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, hint bsoncore.Value, fn func(rid uint64, doc []byte, pos int) bool) error {
	src, err := plannedSource(r, c, filterDoc, f, nil, hint, nil)
	if err != nil {
		return err
	}
	defer src.close()
	for {
		rid, doc, ok, err := src.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		matched, pos := f.MatchPositional(doc)
		if !matched {
			continue
		}
		if !fn(rid, doc, pos) {
			return nil
		}
	}
}
