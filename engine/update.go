package engine

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/query"
	"github.com/lodedb/lode/storage"
	"github.com/lodedb/lode/update"
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
	if err := validateUserWrite(db, coll); err != nil {
		return res, err
	}
	var lastSeq uint64
	for i, s := range specs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		r, seq, err := e.updateStatement(ctx, db, coll, s)
		lastSeq = max(lastSeq, seq)
		res.N += r.n
		res.NModified += r.nModified
		if r.upserted.Type != 0 {
			res.Upserted = append(res.Upserted, Upserted{Index: i, ID: r.upserted})
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

// parsedUpdate is an update statement ready to run.
type parsedUpdate struct {
	filterDoc bsoncore.Document
	filter    *query.Filter
	u         *update.Update
	multi     bool
	upsert    bool
}

func parseUpdate(filter bsoncore.Document, upd bsoncore.Value, arrayFilters []bsoncore.Document, multi, upsert bool) (*parsedUpdate, error) {
	if filter == nil {
		filter = emptyDoc
	}
	f, err := query.Parse(filter)
	if err != nil {
		return nil, err
	}
	if upd.Type == bsoncore.TypeArray {
		return nil, errs.New(errs.NotImplemented, "pipeline-style updates are not supported yet")
	}
	if upd.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.FailedToParse, "Update argument must be either an object or an array")
	}
	u, err := update.Parse(upd.Document(), arrayFilters)
	if err != nil {
		return nil, err
	}
	if multi && u.IsReplacement() {
		return nil, errs.New(errs.FailedToParse, "multi update is not supported for replacement-style update")
	}
	return &parsedUpdate{filterDoc: filter, filter: f, u: u, multi: multi, upsert: upsert}, nil
}

func (e *Engine) updateStatement(ctx context.Context, db, coll string, s UpdateSpec) (stmtResult, uint64, error) {
	p, err := parseUpdate(s.Filter, s.Update, s.ArrayFilters, s.Multi, s.Upsert)
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
	err := scanMatchesSorted(t.reader(), t.c, p.filterDoc, p.filter, sortBy, t.emptyRangesFor(), func(rid uint64, doc []byte, pos int) bool {
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
		out, modified, err := applyUpdate(p.u, docs[i], update.ApplyOptions{Pos: poss[i], Now: now})
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
	doc, err := upsertDoc(p, now)
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

// applyUpdate applies u and checks the result's size and _id.
func applyUpdate(u *update.Update, doc bsoncore.Document, o update.ApplyOptions) (bsoncore.Document, bool, error) {
	out, modified, err := u.Apply(doc, o)
	if err != nil || !modified {
		return out, modified, err
	}
	if len(out) > MaxDocumentSize {
		return nil, false, errs.New(errs.Code(17419), "Resulting document after update is larger than %d", MaxDocumentSize)
	}
	if _, err := out.LookupErr("_id"); err != nil || firstKey(out) != "_id" {
		fixed, werr := ensureID(out)
		if werr != nil {
			return nil, false, werr
		}
		out = fixed
	}
	return out, true, nil
}

func firstKey(d bsoncore.Document) string {
	e, err := d.IndexErr(0)
	if err != nil {
		return ""
	}
	return e.Key()
}

// upsertDoc builds the document an upsert inserts: the filter's equality
// seed with the update applied as an insert (so $setOnInsert applies), or
// the replacement with the seed's _id.
func upsertDoc(p *parsedUpdate, now time.Time) (bsoncore.Document, error) {
	seed, err := query.UpsertSeed(p.filterDoc)
	if err != nil {
		return nil, err
	}
	var out bsoncore.Document
	if p.u.IsReplacement() {
		out, _, err = p.u.Apply(seedIDOnly(seed), update.ApplyOptions{Insert: true, Now: now})
	} else {
		out, _, err = p.u.Apply(seed, update.ApplyOptions{Insert: true, Now: now})
	}
	if err != nil {
		return nil, err
	}
	// MongoDB checks the upserted document against the user limit with its
	// own code (UpsertStage), not the insert-time BadValue.
	doc, werr := ensureID(out)
	if werr != nil {
		return nil, werr
	}
	if len(doc) > MaxDocumentSize {
		return nil, errs.New(errs.Code(17420), "Document to upsert is larger than %d", MaxDocumentSize)
	}
	return doc, nil
}

// seedIDOnly keeps only the _id of an upsert seed (a replacement upsert
// takes nothing else from the filter).
func seedIDOnly(seed bsoncore.Document) bsoncore.Document {
	id, err := seed.LookupErr("_id")
	if err != nil {
		return emptyDoc
	}
	return bsoncore.NewDocumentBuilder().AppendValue("_id", id).Build()
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
	err := scanMatches(snap, c, p.filterDoc, p.filter, func(rid uint64, _ []byte, _ int) bool {
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
			out, modified, err := applyUpdate(p.u, doc, update.ApplyOptions{Pos: pos, Now: now})
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
// positional match index, until fn returns false. doc is valid only during
// the call.
func scanMatches(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, fn func(rid uint64, doc []byte, pos int) bool) error {
	src, err := plannedSource(r, c, filterDoc, f, nil, nil)
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
