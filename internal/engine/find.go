package engine

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
)

// Find runs a query against db.coll over a snapshot. A missing collection
// yields an empty iterator.
func (e *Engine) Find(ctx context.Context, db, coll string, spec FindSpec) (Iterator, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	oplogRead := e.isOplog(db, coll)
	if oplogRead {
		var err error
		if spec, err = oplogFindSpec(ctx, spec); err != nil { // oplogcoll.go
			return nil, err
		}
	}
	collator, err := e.statementCollator(db, coll, spec.Collation)
	if err != nil {
		return nil, err
	}
	filter, f, err := parseFilter(ctx, spec.Filter, spec.Let, collator)
	if err != nil {
		return nil, err
	}
	var sortBy *query.Sort
	naturalDir := 0
	if len(spec.Sort) > 5 {
		s, err := query.ParseSort(spec.Sort)
		if err != nil {
			return nil, err
		}
		sortBy, naturalDir = splitSort(s.Collated(collator))
	}
	var proj *query.Projection
	if len(spec.Projection) > 5 {
		if proj, err = query.ParseProjection(spec.Projection); err != nil {
			return nil, err
		}
		proj.SetContext(ctx) // computed fields stop with the operation
	}
	if spec.TextScoreField != "" {
		proj = proj.WithScoreField(spec.TextScoreField)
	}
	limit := spec.Limit
	if limit < 0 {
		limit = -limit
	}
	if oplogRead && spec.Tailable {
		return e.tailOplog(ctx, spec, f, proj) // oplogtail.go
	}
	c, records, err := e.readColl(ctx, db, coll, f)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return &sliceIter{}, nil
	}
	if spec.Tailable {
		if spec.ShowRecordID || spec.ReturnKey {
			return nil, errs.New(errs.NotImplemented, "showRecordId and returnKey are not supported on tailable cursors by Lode")
		}
		return e.findTailable(ctx, c, spec, f, proj)
	}
	snap, release, c := e.snapshotOf(ctx, c) // the transaction's view inside one (txn_write.go)
	q := planReq{filterDoc: filter, filter: f, sort: sortBy, sortDoc: spec.Sort, hint: spec.Hint, preferCollScan: true, db: e.db, stats: opstats.From(ctx), records: records,
		min: spec.Min, max: spec.Max, naturalDir: naturalDir}
	q.opts = exec.Options{Sort: sortBy, SortDoc: spec.Sort, Skip: spec.Skip, Limit: limit,
		Projection: proj, ProjectionDoc: spec.Projection,
		SortOpts: exec.SortOptions{AllowDiskUse: spec.AllowDiskUse, SpillDir: e.TempDir()}}
	if spec.ReturnKey {
		// The key replaces the document, so the projection is moot.
		q.opts.Projection, q.opts.ProjectionDoc = nil, nil
	}
	bp, err := e.buildPlan(snap, c, q)
	if err != nil {
		release()
		return nil, err
	}
	it := &planIter{ctx: ctx, release: release, bp: bp, showRecordID: spec.ShowRecordID}
	if g, ok := ctx.(opstats.Generational); ok && bp.st != nil {
		it.gen, it.lastGen = g, g.Generation()
	}
	if spec.ReturnKey && bp.sol.Index != nil && bp.sol.Index.Text != nil {
		bp.close()
		release()
		return nil, errs.New(errs.NotImplemented, "returnKey with $text is not supported by Lode")
	}
	if spec.ReturnKey {
		if it.keyFields, err = returnKeyFields(bp.sol); err != nil {
			bp.close()
			release()
			return nil, err
		}
		it.returnKey = true
	}
	return it, nil
}

// sliceIter iterates documents already in memory.
type sliceIter struct {
	docs []bsoncore.Document
}

// Next implements Iterator.
func (s *sliceIter) Next() (bsoncore.Document, error) {
	if len(s.docs) == 0 {
		return nil, nil
	}
	d := s.docs[0]
	s.docs = s.docs[1:]
	return d, nil
}

// Close implements Iterator.
func (s *sliceIter) Close() error { s.docs = nil; return nil }

// slab copies documents into shared chunks to avoid one allocation per
// document.
type slab struct{ buf []byte }

const slabSize = 64 << 10

func (s *slab) copy(doc []byte) bsoncore.Document {
	if cap(s.buf)-len(s.buf) < len(doc) {
		s.buf = make([]byte, 0, max(slabSize, len(doc)))
	}
	start := len(s.buf)
	s.buf = append(s.buf, doc...)
	return s.buf[start:len(s.buf):len(s.buf)]
}
