package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// FindAndModify atomically finds one document and updates or removes it.
// The search and the change happen under the collection's writer lock
// against its current state, so two concurrent calls never claim the same
// document.
func (e *Engine) FindAndModify(ctx context.Context, db, coll string, spec FindAndModifySpec) (FindAndModifyResult, error) {
	var res FindAndModifyResult
	e.db.BeginWrite(spec.Journal) // the durability wait gathers the commits of others (storage/sync.go)
	defer e.db.EndWrite(spec.Journal)
	if err := e.checkOpen(); err != nil {
		return res, err
	}
	if err := validateUserWrite(db, coll); err != nil {
		return res, err
	}
	if spec.Remove && len(spec.ArrayFilters) > 0 {
		return res, errs.New(errs.FailedToParse, "Cannot specify arrayFilters and remove=true")
	}
	if spec.Remove && (spec.Update.Type != 0 || spec.Upsert || spec.New) {
		if spec.Update.Type != 0 {
			return res, errs.New(errs.FailedToParse, "Cannot specify both an update and remove=true")
		}
		if spec.Upsert {
			return res, errs.New(errs.FailedToParse, "Cannot specify both upsert=true and remove=true")
		}
		return res, errs.New(errs.FailedToParse, "Cannot specify both new=true and remove=true; 'remove' always returns the deleted document")
	}
	if !spec.Remove && spec.Update.Type == 0 {
		return res, errs.New(errs.FailedToParse, "Either an update or remove=true must be specified")
	}
	filter := spec.Query
	if filter == nil {
		filter = emptyDoc
	}
	collator, err := e.statementCollator(db, coll, spec.Collation)
	if err != nil {
		return res, err
	}
	var sortBy *query.Sort
	if len(spec.Sort) > 5 {
		s, err := query.ParseSort(spec.Sort)
		if err != nil {
			return res, err
		}
		// Kept whole: plannedSource splits {$natural: -1} (the last
		// match in record order) from a sort by fields.
		sortBy = s.Collated(collator)
	}
	var proj *query.Projection
	if len(spec.Fields) > 5 {
		p, err := query.ParseProjection(spec.Fields)
		if err != nil {
			return res, err
		}
		if p.HasMeta() {
			return res, errs.New(errs.NotImplemented, "{$meta: \"textScore\"} in findAndModify's fields is not supported by Lode")
		}
		// A positional projection needs the match against the document
		// returned, and the new document may no longer match: mongod
		// refuses the pair (BadValue), a removal or new: false keep it.
		if _, ok := p.Positional(); ok && spec.New && !spec.Remove {
			return res, errs.New(errs.BadValue, "cannot use a positional projection and return the new document")
		}
		proj = p
	}
	var p *parsedUpdate
	var f *query.Filter
	if spec.Remove {
		var err error
		if _, f, err = parseFilter(ctx, filter, spec.Let, collator); err != nil {
			return res, err
		}
	} else {
		var err error
		p, err = parseUpdate(updateArgs{
			filter: filter, upd: spec.Update, arrayFilters: spec.ArrayFilters, upsert: spec.Upsert,
			hint: spec.Hint, let: spec.Let, coll: collator,
		})
		if err != nil {
			return res, err
		}
		p.vars.SetContext(ctx)
		f = p.filter
	}

	c, err := e.lockCollCtx(ctx, db, coll, spec.Upsert)
	if err != nil {
		return res, err
	}
	if c == nil {
		return res, nil
	}
	t := e.newWriteBatchCtx(WithBypassValidation(ctx, spec.BypassDocumentValidation), c)
	var out bsoncore.Document
	var pos int
	if spec.Remove {
		rid, doc, dpos, found, ferr := t.e.findFirstLocked(t.reader(), c, filter, f, sortBy, spec.Hint, t.emptyRangesFor(), t.st)
		err = ferr
		if err == nil && found {
			err = t.remove(rid, doc)
			if err == nil {
				res.LastErrorObject.N = 1
				out, pos = doc, dpos
			}
		}
	} else {
		var r stmtResult
		r, err = e.updateLocked(ctx, t, p, sortBy)
		if err == nil {
			res.LastErrorObject.N = r.n
			res.LastErrorObject.UpdatedExisting = r.n > 0 && r.upserted.Type == 0
			res.LastErrorObject.Upserted = r.upserted
			pos = r.pos
			switch {
			case r.upserted.Type != 0:
				if spec.New {
					out = r.post
				}
			case r.n > 0 && spec.New:
				out = r.post
			case r.n > 0:
				out = r.pre
			}
		}
	}
	if err == nil {
		err = t.commit()
	}
	t.abort()
	c.state.mu.Unlock()
	if err != nil {
		return FindAndModifyResult{}, err
	}
	if err := e.waitDurable(ctx, t.lastSeq, spec.Journal); err != nil {
		return res, err
	}
	if out != nil && proj != nil {
		pd, err := proj.Apply(out, pos)
		if err != nil {
			return res, err
		}
		out = pd
	}
	res.Value = out
	return res, nil
}
