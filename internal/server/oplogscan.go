package server

import (
	"context"
	"math"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/query"
)

// local.oplog.rs. The operation log (package oplog) is not a collection
// of the catalog: find, count, aggregate and collStats on its namespace
// read the log through an oplogSource, which filters with the query
// matcher, orders by $natural (the timestamp order) either way, and never
// reads past the log's visibility point, so no reader sees an entry
// before an older one has committed. A tailable awaitData find follows
// the log as it grows. Writes to it are refused by the engine.

// oplogNS reports whether db.coll is the oplog's namespace and the
// oplog is on.
func (s *Server) oplogNS(db, coll string) bool {
	return engine.IsOplogNS(db, coll) && s.eng.Oplog() != nil
}

// oplogQuery is one read of local.oplog.rs.
type oplogQuery struct {
	filter *query.Filter
	proj   *query.Projection
	// sort is a sort on fields other than ts; nil reads in timestamp
	// ($natural) order, reverse newest first.
	sort         *query.Sort
	reverse      bool
	skip, limit  int64
	tailable     bool
	showRecordID bool
	// countOnly: the reader wants how many entries match, not their
	// documents.
	countOnly bool
	// lo and hi bound the timestamps the filter can match (hi 0: none).
	lo, hi oplog.TS
	// maxSortBytes bounds the memory of a sort on fields.
	maxSortBytes int64
}

// oplogTailSortErr is mongod's refusal of a tailable cursor in another
// order than the log's.
func oplogTailSortErr() error {
	return errs.New(errs.BadValue, "error processing query: ns=%s.%s cannot use tailable option with a sort other than {$natural: 1}", engine.OplogDB, engine.OplogColl)
}

// parseOplogQuery reads a find specification for the oplog.
func (s *Server) parseOplogQuery(spec engine.FindSpec) (*oplogQuery, error) {
	epc := expr.NewParseContext()
	vars := expr.NewVars(time.Now())
	if spec.Let != nil {
		if err := bindLet(spec.Let, epc, vars); err != nil {
			return nil, err
		}
	}
	filter := spec.Filter
	if filter == nil {
		filter = bsoncore.NewDocumentBuilder().Build()
	}
	f, err := query.ParseWithVars(filter, epc, vars)
	if err != nil {
		return nil, err
	}
	if _, _, tn := query.TextOrBranch(f); tn != nil {
		return nil, errs.New(errs.IndexNotFound, "text index required for $text query") // the oplog has no text index
	}
	if tn, _ := query.TextOf(f); tn != nil {
		return nil, errs.New(errs.IndexNotFound, "text index required for $text query") // the oplog has no text index
	}
	q := &oplogQuery{filter: f, skip: spec.Skip, limit: spec.Limit, tailable: spec.Tailable,
		showRecordID: spec.ShowRecordID, hi: math.MaxUint64,
		maxSortBytes: s.eng.Params().MaxBlockingSortBytes.Load()}
	if q.limit < 0 {
		q.limit = -q.limit
	}
	hintDir, err := oplogHint(spec.Hint)
	if err != nil {
		return nil, err
	}
	q.reverse = hintDir < 0
	natural := true
	if len(spec.Sort) > 5 {
		so, err := query.ParseSort(spec.Sort)
		if err != nil {
			return nil, err
		}
		if dir, ok := so.Natural(); ok {
			q.reverse = dir < 0
		} else if len(so.Fields) == 1 && so.Fields[0].Path == "ts" {
			// Timestamps are unique and ordered as the log is.
			q.reverse, natural = so.Fields[0].Desc, false
		} else if !so.Empty() {
			q.sort, natural = so, false
		}
	}
	if q.tailable && (q.reverse || !natural) {
		return nil, oplogTailSortErr()
	}
	if len(spec.Projection) > 5 {
		if q.proj, err = query.ParseProjection(spec.Projection); err != nil {
			return nil, err
		}
		if err := q.proj.CheckFilter(f); err != nil {
			return nil, err
		}
	}
	tsBounds(f.Root(), &q.lo, &q.hi)
	return q, nil
}

// oplogHint reads a find's hint: {$natural: ±1} gives the direction when
// there is no sort (dir -1 or 1; 0 for no hint); the log has no index to
// name.
func oplogHint(h bsoncore.Value) (dir int, err error) {
	if h.Type == 0 {
		return 0, nil
	}
	if d, ok := h.DocumentOK(); ok {
		if len(d) <= 5 {
			return 0, nil // {} is no hint
		}
		if el := d.Index(0); el.Key() == "$natural" {
			if bsonutil.AsFloat64(el.Value()) < 0 {
				return -1, nil
			}
			return 1, nil
		}
	}
	return 0, errs.New(errs.BadValue, "error processing query: ns=%s.%s planner returned error :: caused by :: hint provided does not correspond to an existing index", engine.OplogDB, engine.OplogColl)
}

// tsBounds narrows [lo, hi] to the timestamps a filter's top-level
// conditions on ts allow (mongodump's {ts: {$gte: a, $lte: b}}), so a
// read starts and stops where they do. The filter is still applied to
// every entry.
func tsBounds(n query.Node, lo, hi *oplog.TS) {
	switch n := n.(type) {
	case *query.AndNode:
		for _, c := range n.Children {
			tsBounds(c, lo, hi)
		}
	case *query.CompareNode:
		if n.Path != "ts" || n.Value.Type != bsoncore.TypeTimestamp {
			return
		}
		t, i := n.Value.Timestamp()
		v := oplog.MakeTS(t, i)
		switch n.Op {
		case query.OpEQ:
			*lo, *hi = max(*lo, v), min(*hi, v)
		case query.OpGT:
			if v == math.MaxUint64 {
				*lo, *hi = 1, 0 // nothing
				return
			}
			*lo = max(*lo, v+1)
		case query.OpGTE:
			*lo = max(*lo, v)
		case query.OpLT:
			if v == 0 {
				*lo, *hi = 1, 0
				return
			}
			*hi = min(*hi, v-1)
		case query.OpLTE:
			*hi = min(*hi, v)
		}
	}
}

// openOplog starts a read of the oplog.
func (s *Server) openOplog(ctx context.Context, spec engine.FindSpec) (*oplogSource, error) {
	if engine.TxnFrom(ctx) != nil {
		return nil, errs.New(errs.OperationNotSupportedInTransaction, "Cannot run command against the '%s' database in a transaction.", engine.OplogDB)
	}
	q, err := s.parseOplogQuery(spec)
	if err != nil {
		return nil, err
	}
	return &oplogSource{log: s.eng.Oplog(), q: q, ctx: ctx, skip: q.skip}, nil
}

// oplogSource reads entries of the log for a cursor (cursor.Source,
// Waiter, Ender and ContextSetter) or an aggregation (agg.Iterator).
type oplogSource struct {
	log *oplog.Log
	q   *oplogQuery
	ctx context.Context

	started bool
	done    bool
	// seen is, reading forward, the timestamp up to which every entry has
	// been examined; reading backward, the next timestamp to read down
	// from.
	seen oplog.TS
	// end is where a forward read that does not tail stops: the visible
	// point when it started.
	end      oplog.TS
	skip     int64
	returned int64
	out      []oplogDoc // read ahead, in order
}

// oplogDoc is an entry that matched, with its timestamp and the array
// position a positional projection needs.
type oplogDoc struct {
	doc bsoncore.Document
	ts  oplog.TS
	pos int
}

// How much one read of the log takes at most.
const (
	oplogReadEntries = 1024
	oplogReadBytes   = 4 << 20
)

// SetContext implements cursor.ContextSetter.
func (o *oplogSource) SetContext(ctx context.Context) { o.ctx = ctx }

// Ended implements cursor.Ender: a tailable read whose timestamp bound is
// behind it has nothing more to return.
func (o *oplogSource) Ended() bool { return o.done && len(o.out) == 0 }

// Close implements cursor.Source.
func (o *oplogSource) Close() error { o.out, o.done = nil, true; return nil }

// Wait implements cursor.Waiter: it returns when the visible point moves
// past what the read has seen, after d, or when ctx ends.
func (o *oplogSource) Wait(ctx context.Context, d time.Duration) {
	vis, ch := o.log.Visible()
	if vis > o.seen || len(o.out) > 0 || o.done {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}

// Next implements cursor.Source: the next matching entry, or nil at the
// end of what is visible.
func (o *oplogSource) Next() (bsoncore.Document, error) {
	if o.q.limit > 0 && o.returned >= o.q.limit {
		return nil, nil
	}
	for len(o.out) == 0 {
		if o.done {
			return nil, nil
		}
		if o.ctx != nil && o.ctx.Err() != nil {
			return nil, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
		}
		var more bool
		var err error
		switch {
		case o.q.sort != nil:
			err = o.readSorted()
		case o.q.reverse:
			err = o.readBackward()
			more = !o.done
		default:
			more, err = o.readForward()
		}
		if err != nil {
			return nil, err
		}
		if len(o.out) == 0 && !more {
			return nil, nil // the end, or a tailable read caught up
		}
	}
	d := o.out[0]
	o.out[0] = oplogDoc{}
	o.out = o.out[1:]
	o.returned++
	return o.render(d)
}

// render applies the projection and showRecordId to an entry.
func (o *oplogSource) render(d oplogDoc) (bsoncore.Document, error) {
	doc := d.doc
	if o.q.proj != nil && !o.q.countOnly {
		var err error
		if doc, err = o.q.proj.Apply(doc, d.pos); err != nil {
			return nil, err
		}
	}
	if o.q.showRecordID && !o.q.countOnly {
		doc = appendFields(doc, bsoncore.NewDocumentBuilder().AppendInt64("$recordId", int64(d.ts)).Build())
	}
	return doc, nil
}

// keep tests an entry against the filter and keeps a copy when it
// matches and is not skipped (skip: the read's skip applies in this
// order).
func (o *oplogSource) keep(ts oplog.TS, doc bsoncore.Document, skip bool) {
	ok, pos := o.q.filter.MatchPositional(doc)
	if !ok {
		return
	}
	if skip && o.skip > 0 {
		o.skip--
		return
	}
	kept := emptyOplogDoc
	if !o.q.countOnly || o.q.sort != nil {
		kept = append(bsoncore.Document(nil), doc...)
	}
	o.out = append(o.out, oplogDoc{doc: kept, ts: ts, pos: pos})
}

var emptyOplogDoc = bsoncore.NewDocumentBuilder().Build()

// readForward reads the next run of entries oldest first. more reports
// that entries remain to examine now (a run ended by its size limit).
func (o *oplogSource) readForward() (more bool, err error) {
	vis, _ := o.log.Visible()
	if !o.started {
		o.started = true
		if o.q.lo > 0 {
			o.seen = o.q.lo - 1
		}
		o.end = vis
	} else if t := o.log.Trimmed(); t > o.seen {
		// Entries this read had not reached were trimmed away.
		return false, errs.New(errs.CappedPositionLost, "CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(%d)", int64(o.seen))
	}
	upTo := min(o.end, o.q.hi)
	if o.q.tailable {
		upTo = min(vis, o.q.hi)
	}
	if upTo <= o.seen {
		if !o.q.tailable || o.seen >= o.q.hi {
			o.done = true
		}
		return false, nil
	}
	n, size := 0, 0
	stopped := false
	err = o.log.Scan(o.seen, upTo, func(ts oplog.TS, doc bsoncore.Document) error {
		o.seen = ts
		o.keep(ts, doc, true)
		n++
		size += len(doc)
		if n >= oplogReadEntries || size >= oplogReadBytes {
			stopped = true
			return oplog.ErrStop
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	if !stopped {
		o.seen = upTo
		if !o.q.tailable || upTo >= o.q.hi {
			o.done = true
		}
	}
	return stopped, nil
}

// readBackward reads the next run of entries newest first, from the
// visible point when the read started.
func (o *oplogSource) readBackward() error {
	if !o.started {
		o.started = true
		vis, _ := o.log.Visible()
		o.seen = min(vis, o.q.hi)
	}
	if o.seen == 0 || o.seen < o.q.lo {
		o.done = true
		return nil
	}
	n, size := 0, 0
	var last oplog.TS
	stopped := false
	err := o.log.ScanReverse(o.q.lo, o.seen, func(ts oplog.TS, doc bsoncore.Document) error {
		last = ts
		o.keep(ts, doc, true)
		n++
		size += len(doc)
		if n >= oplogReadEntries || size >= oplogReadBytes {
			stopped = true
			return oplog.ErrStop
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !stopped || last <= max(o.q.lo, 1) {
		o.done = true
		return nil
	}
	o.seen = last - 1
	return nil
}

// readSorted reads every matching entry visible now and sorts them: a
// blocking sort, bounded like mongod's by
// internalQueryMaxBlockingSortMemoryUsageBytes.
func (o *oplogSource) readSorted() error {
	vis, _ := o.log.Visible()
	upTo := min(vis, o.q.hi)
	var lo oplog.TS
	if o.q.lo > 0 {
		lo = o.q.lo - 1
	}
	var bytes int64
	err := o.log.Scan(lo, upTo, func(ts oplog.TS, doc bsoncore.Document) error {
		n := len(o.out)
		o.keep(ts, doc, false)
		if len(o.out) > n {
			bytes += int64(len(doc)) + 32
			if o.q.maxSortBytes > 0 && bytes > o.q.maxSortBytes {
				return errs.New(errs.QueryExceededMemoryLimitNoDiskUseAllowed,
					"Executor error during find command :: caused by :: Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", o.q.maxSortBytes)
			}
		}
		if o.ctx != nil && o.ctx.Err() != nil {
			return errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
		}
		return nil
	})
	if err != nil {
		return err
	}
	keys := make(map[oplog.TS]query.SortKey, len(o.out))
	for _, d := range o.out {
		keys[d.ts] = o.q.sort.Key(d.doc)
	}
	slices.SortStableFunc(o.out, func(a, b oplogDoc) int { return o.q.sort.CompareKeys(keys[a.ts], keys[b.ts]) })
	o.out = o.out[min(o.skip, int64(len(o.out))):]
	o.skip = 0
	o.done = true
	if o.q.countOnly {
		for i := range o.out {
			o.out[i].doc = emptyOplogDoc
		}
	}
	return nil
}

// countOplog is count on local.oplog.rs.
func (s *Server) countOplog(ctx context.Context, filter bsoncore.Document, skip, limit int64) (int64, error) {
	if len(filter) <= 5 && skip == 0 && limit == 0 {
		// As mongod, a count of everything reads the collection's figures.
		st, err := s.eng.Oplog().Stats()
		return st.Count, err
	}
	src, err := s.openOplog(ctx, engine.FindSpec{Filter: filter, Skip: skip, Limit: limit})
	if err != nil {
		return 0, err
	}
	src.q.countOnly = true
	var n int64
	for {
		d, err := src.Next()
		if err != nil {
			return 0, err
		}
		if d == nil {
			return n, nil
		}
		n++
	}
}
