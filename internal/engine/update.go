package engine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/opstats"
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
	var err error
	ctx = WithBypassValidation(ctx, opts.BypassDocumentValidation)
	res.WriteErrors, err = e.runStatements(ctx, len(specs), opts, func(i int) (uint64, error) {
		r, seq, err := e.updateStatement(ctx, db, coll, specs[i])
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
		return seq, err
	})
	return res, err
}

func (e *Engine) updateStatement(ctx context.Context, db, coll string, s UpdateSpec) (stmtResult, uint64, error) {
	collator, err := e.statementCollator(db, coll, s.Collation)
	if err != nil {
		return stmtResult{}, 0, err
	}
	p, err := parseUpdate(updateArgs{
		filter: s.Filter, upd: s.Update, arrayFilters: s.ArrayFilters, multi: s.Multi, upsert: s.Upsert,
		hint: s.Hint, let: s.Let, constants: s.Constants, coll: collator,
	})
	if err != nil {
		return stmtResult{}, 0, err
	}
	p.vars.SetContext(ctx) // its $expr and pipeline stop with the operation
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
	t := e.newWriteBatchCtx(ctx, c)
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
func (e *Engine) updateLocked(ctx context.Context, t *writeBatch, p *parsedUpdate, sortBy *query.Sort) (stmtResult, error) {
	var r stmtResult
	var ids []uint64
	var docs []bsoncore.Document
	var poss []int
	// The planner returns matches in sortBy order: the first is the one.
	if p.multi {
		sortBy = nil
	}
	err := e.scanMatchesSorted(t.reader(), t.c, p.filterDoc, p.filter, sortBy, !p.multi, p.hint, t.emptyRangesFor(), t.st, func(rid uint64, doc []byte, pos int) bool {
		ids = append(ids, rid)
		docs = append(docs, append([]byte(nil), doc...))
		poss = append(poss, pos)
		return p.multi
	})
	if err != nil {
		return r, err
	}
	if err := ctx.Err(); err != nil {
		// The scan ran past the deadline: a $expr it stopped did not
		// match, so nothing found is no reason to upsert.
		return r, err
	}
	now := time.Now()
	for i, rid := range ids {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		r.n++
		out, modified, err := p.apply(ctx, docs[i], update.ApplyOptions{Pos: poss[i], Now: now, Clock: &e.tsClock})
		if err != nil {
			return r, err
		}
		r.pre, r.post, r.pos = docs[i], out, poss[i]
		if !modified {
			continue
		}
		if err := t.update(rid, docs[i], out, p.replaces()); err != nil {
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
	doc, err := p.upsertDoc(ctx, now, &e.tsClock)
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

// updateMany runs a multi update through writeMatches, applying p to
// each match (with its positional match) and counting the matches and
// the documents changed.
func (e *Engine) updateMany(ctx context.Context, db, coll string, p *parsedUpdate) (stmtResult, uint64, error) {
	var r stmtResult
	now := time.Now()
	lastSeq, err := e.writeMatches(ctx, db, coll, p.filterDoc, p.filter, p.hint, true, func(t *writeBatch, rid uint64, doc []byte, pos int) (bool, error) {
		r.n++
		out, modified, err := p.apply(ctx, doc, update.ApplyOptions{Pos: pos, Now: now, Clock: &e.tsClock})
		if err != nil || !modified {
			return false, err
		}
		if err := t.update(rid, doc, out, p.replaces()); err != nil {
			return false, err
		}
		r.nModified++
		return true, nil // doc is referenced by the batch until commit
	})
	return r, lastSeq, err
}

// scanMatches calls fn with every document of c matching f in r, with the
// positional match index, until fn returns false. hint is the statement's
// index hint (zero Value: none). doc is valid only during the call.
func (e *Engine) scanMatches(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, hint bsoncore.Value, st *opstats.Stats, fn func(rid uint64, doc []byte, pos int) bool) error {
	src, err := e.plannedSource(r, c, filterDoc, f, nil, false, hint, nil, st)
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
		matched, pos, err := f.MatchChecked(doc)
		if err != nil {
			return err // a $expr failed: the statement fails
		}
		if !matched {
			continue
		}
		if !fn(rid, doc, pos) {
			return nil
		}
	}
}
