package engine

import (
	"context"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/query"
	"github.com/lodedb/lode/query/exec"
)

// Find runs a query against db.coll over a snapshot. A missing collection
// yields an empty iterator.
func (e *Engine) Find(ctx context.Context, db, coll string, spec FindSpec) (Iterator, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	filter := spec.Filter
	if filter == nil {
		filter = emptyDoc
	}
	epc, vars, err := bindVars(spec.Let, nil, time.Now())
	if err != nil {
		return nil, err
	}
	f, err := query.ParseWithVars(filter, epc, vars)
	if err != nil {
		return nil, err
	}
	var sortBy *query.Sort
	reverse := false
	if len(spec.Sort) > 5 {
		s, err := query.ParseSort(spec.Sort)
		if err != nil {
			return nil, err
		}
		if dir, ok := s.Natural(); ok {
			reverse = dir < 0
		} else if !s.Empty() {
			sortBy = s
		}
	}
	var proj *query.Projection
	if len(spec.Projection) > 5 {
		if proj, err = query.ParseProjection(spec.Projection); err != nil {
			return nil, err
		}
	}
	limit := spec.Limit
	if limit < 0 {
		limit = -limit
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return &sliceIter{}, nil
	}
	if spec.Tailable {
		if spec.ShowRecordID {
			return nil, errs.New(errs.NotImplemented, "showRecordId is not supported on tailable cursors by Lode")
		}
		return e.findTailable(ctx, c, spec, f, proj)
	}
	snap, release := e.snapshotCtx(ctx) // the transaction's view inside one (txn_write.go)
	q := planReq{filterDoc: filter, filter: f, sort: sortBy, sortDoc: spec.Sort, hint: spec.Hint, preferCollScan: true, db: e.db}
	if reverse {
		q.naturalDir = -1
	}
	q.opts = exec.Options{Sort: sortBy, SortDoc: spec.Sort, Skip: spec.Skip, Limit: limit,
		Projection: proj, ProjectionDoc: spec.Projection,
		SortOpts: exec.SortOptions{AllowDiskUse: spec.AllowDiskUse, SpillDir: e.TempDir()}}
	bp, err := buildPlan(snap, c, q)
	if err != nil {
		release()
		return nil, err
	}
	return &planIter{ctx: ctx, release: release, bp: bp, showRecordID: spec.ShowRecordID}, nil
}

// findIter streams matching documents from a record source: the FILTER,
// SKIP, LIMIT and PROJECTION stages of a plan without a blocking sort.
type findIter struct {
	ctx     context.Context
	release func() // releases the snapshot
	src     recordSource
	filter  *query.Filter
	proj    *query.Projection
	skip    int64
	limit   int64 // 0 = none
	n       int64
	slab    slab
	done    bool
	// raw disables skip/limit/projection (used by blocking sort).
	raw bool
}

// SetContext replaces the context that bounds the iterator's work. A
// cursor lives across getMore commands, each with its own deadline, so the
// cursor hands every batch its command's context.
func (it *findIter) SetContext(ctx context.Context) { it.ctx = ctx }

// nextMatch returns the next matching document (copied) and its
// positional index.
func (it *findIter) nextMatch() (bsoncore.Document, int, error) {
	for {
		if err := it.ctx.Err(); err != nil {
			return nil, 0, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
		}
		_, doc, ok, err := it.src.next()
		if err != nil || !ok {
			return nil, 0, err
		}
		matched, pos := it.filter.MatchPositional(doc)
		if !matched {
			continue
		}
		if it.skip > 0 {
			it.skip--
			continue
		}
		return it.slab.copy(doc), pos, nil
	}
}

// Next implements Iterator.
func (it *findIter) Next() (bsoncore.Document, error) {
	if it.done || (it.limit > 0 && it.n >= it.limit) {
		it.Close()
		return nil, nil
	}
	doc, pos, err := it.nextMatch()
	if err != nil || doc == nil {
		it.Close()
		return nil, err
	}
	it.n++
	if it.proj != nil {
		return it.proj.Apply(doc, pos)
	}
	return doc, nil
}

// Close implements Iterator.
func (it *findIter) Close() error {
	if it.done {
		return nil
	}
	it.done = true
	it.src.close()
	it.release()
	return nil
}

// sortAll drains it (which must apply no skip), sorts, then applies skip,
// limit and projection: a blocking SORT stage.
func sortAll(it *findIter, s *query.Sort, proj *query.Projection, skip, limit int64) (Iterator, error) {
	it.skip = 0
	type entry struct {
		doc bsoncore.Document
		pos int
	}
	var all []entry
	for {
		doc, pos, err := it.nextMatch()
		if err != nil {
			return nil, err
		}
		if doc == nil {
			break
		}
		all = append(all, entry{doc, pos})
	}
	sort.SliceStable(all, func(i, j int) bool { return s.Compare(all[i].doc, all[j].doc) < 0 })
	if skip >= int64(len(all)) {
		return &sliceIter{}, nil
	}
	all = all[skip:]
	if limit > 0 && limit < int64(len(all)) {
		all = all[:limit]
	}
	out := make([]bsoncore.Document, len(all))
	for i, en := range all {
		if proj != nil {
			d, err := proj.Apply(en.doc, en.pos)
			if err != nil {
				return nil, err
			}
			out[i] = d
		} else {
			out[i] = en.doc
		}
	}
	return &sliceIter{docs: out}, nil
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
