package engine

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/regex"
	"github.com/lodedb/lode/internal/storage"
)

// planIndexes describes c's indexes for the planner: the descriptors'
// cached views (catalog/planview.go) for the query's collation.
func planIndexes(c *collection, q *planReq) ([]*plan.Index, error) {
	out := make([]*plan.Index, 0, len(c.Indexes))
	qc := q.filter.Collator()
	for _, ix := range c.Indexes {
		if ix.Hidden {
			continue // hidden from the planner, hints included (mongod 4.4+)
		}
		if ix.Text != nil {
			continue // used only by $text (textIndexFor)
		}
		out = append(out, ix.PlanIndex(qc))
	}
	return out, nil
}

// planReq is a query to plan.
type planReq struct {
	filterDoc   bsoncore.Document
	filter      *query.Filter
	sort        *query.Sort
	sortDoc     bsoncore.Document
	naturalDir  int
	hint        bsoncore.Value
	covered     bool
	distinctKey string
	opts        exec.Options
	timing      bool
	// empty: known-empty index ranges, for statements under the writer
	// lock only (scanhints.go).
	empty exec.EmptyRanges
	// preferCollScan lets the planner pick a collection scan over index
	// plans too broad to pay off (collscanpref.go): reads only.
	preferCollScan bool
	// db estimates index sizes for the preference (nil: keys are counted).
	db *storage.DB
	// stats receives the plan's figures when it closes (nil: none).
	stats *opstats.Stats
	// filterSet: an index filter chose the candidates' indexes.
	filterSet bool
	// records, when set, is what a collection scan reads instead of the
	// collection's record store (the oplog's entries: oplogcoll.go).
	records storage.RecordSource
	// min and max are a find's key bounds on its hinted index (minmax.go).
	min, max bsoncore.Document
}

// builtPlan is the chosen plan, ready to run, with the candidates that
// lost the trial (for explain).
type builtPlan struct {
	root     exec.Stage
	sol      *plan.Solution
	rejected []exec.Stage
	// rejectedReason, when set, is why the rejected plans lost without a
	// trial (the collection-scan preference).
	rejectedReason string
	// st receives the plan's figures (opstats.go); rep is what was
	// reported to it so far.
	st  *opstats.Stats
	rep exec.Totals
	// summary is the plan's planSummary, once rendered.
	summary string
	// fromCache: the plan came from the plan cache (plancache.go);
	// keyed: the query went through it, with shape and key.
	fromCache, keyed bool
	// filterSet: an index filter chose the indexes (plancache_filters.go).
	filterSet bool
	shape     uint64
	key       uint32
}

func (b *builtPlan) close() {
	b.flushTo(b.st)
	if b.st != nil {
		b.st.Detach(b)
		b.st = nil
	}
	b.root.Close()
	for _, r := range b.rejected {
		r.Close()
	}
}

// buildPlan plans q over c and builds the winning stage tree on r. With
// several candidates it runs a trial (exec.PickBest) and rebuilds the
// winner from the start. The instance's parameters give the planner's
// SORT_MERGE bound and the SORT stage's memory limit and budget.
func (e *Engine) buildPlan(r storage.Reader, c *collection, q planReq) (*builtPlan, error) {
	bp, err := e.buildPlanTree(r, c, q)
	if err == nil && !q.timing {
		e.indexUse.note(bp.sol) // $indexStats (indexaccess.go)
	}
	if err == nil && q.stats != nil && !q.timing {
		// mongod 7.0's IDHACK takes no sort, skip or hint.
		idFilter := q.filterDoc
		if q.sort != nil || q.opts.Skip > 0 || q.hint.Type != 0 {
			idFilter = nil
		}
		bp.report(q.stats, idFilter)
	}
	return bp, err
}

// buildPlanTree is buildPlan without the statistics.
func (e *Engine) buildPlanTree(r storage.Reader, c *collection, q planReq) (bp *builtPlan, err error) {
	if q.opts.SortOpts.MemLimit == 0 {
		q.opts.SortOpts.MemLimit = e.params.MaxBlockingSortBytes.Load()
	}
	if q.opts.SortOpts.Budget == nil {
		q.opts.SortOpts.Budget = e.params.Budget
	}
	if err := checkTextMeta(q); err != nil {
		return nil, err
	}
	env := exec.Env{Reader: r, CollID: c.ID, Records: q.records, Clustered: c.Clustered && q.records == nil, Filter: q.filter, FilterDoc: q.filterDoc, Timing: q.timing, EmptyRanges: q.empty}
	if q.timing {
		// Explain prints stage filters in mongod's parsed form.
		env.FilterDoc = q.filter.Serialize()
	}
	pix, err := planIndexes(c, &q)
	if err != nil {
		return nil, err
	}
	if q.hasMinMax() {
		return minMaxPlan(c, &q, pix, env)
	}
	pix, filterSet := filterIndexes(c, &q, pix)
	if filterSet {
		q.hint = bsoncore.Value{} // the filter wins over a hint, as in mongod
		q.filterSet = true
		defer func() {
			if bp != nil {
				bp.filterSet = true
			}
		}()
	}
	sols, err := plan.Plan(plan.Params{
		NS: c.NS(), Filter: q.filter, FilterDoc: q.filterDoc, Sort: q.sort, SortDoc: q.sortDoc,
		NaturalDir: q.naturalDir, Indexes: pix, Hint: q.hint, TextIndex: textPlanIndex(c),
		MaxScansToExplode: int(e.params.MaxScansToExplode.Load()), Covered: q.covered, DistinctKey: q.distinctKey,
		ProjFields: projFields(q.opts),
	})
	if err != nil {
		return nil, err
	}
	if q.timing {
		for _, s := range sols {
			walkSolution(s.Root, renderResidual)
		}
	}
	// The chosen plan reads documents in batches (exec.Fetch), except
	// under explain, whose figures are mongod's, and during the trial,
	// whose candidates stop early. Write statements may batch too: they
	// run their plan to the end (or their first match) before writing
	// (updateLocked, findFirstLocked), so nothing read ahead goes stale.
	batched := env
	if !q.timing {
		batched.FetchBatch = exec.MaxFetchBatch
	}
	if len(sols) > 1 {
		sols = pruneIntersections(r, sols)
	}
	if reason, ok := preferCollScan(r, c, q, sols); ok {
		return collScanPlan(sols, batched, env, q, reason)
	}
	if len(sols) == 1 {
		root, err := exec.Build(sols[0], batched, q.opts)
		if err != nil {
			return nil, err
		}
		return &builtPlan{root: root, sol: sols[0]}, nil
	}
	shape, cacheable := planShape(&q)
	if cacheable {
		if bp, ok, err := cachedPlan(&c.state.plans, c.Indexes, shape, sols, env, batched, q); ok || err != nil {
			return bp, err
		}
	}
	cands := make([]exec.Stage, len(sols))
	for i, s := range sols {
		if cands[i], err = exec.Build(s, env, q.opts); err != nil {
			for _, c := range cands[:i] {
				c.Close()
			}
			return nil, err
		}
	}
	best, trials := exec.PickBest(cands)
	if best < 0 {
		for _, c := range cands {
			c.Close()
		}
		return nil, trials[0].Err
	}
	if cacheable {
		scores := make([]float64, len(trials))
		for i, t := range trials {
			scores[i] = t.Score
		}
		c.state.plans.record(c.Indexes, shape, sols[best], cands[best].Stats().Works, &q, scores)
	}
	bp = &builtPlan{sol: sols[best]}
	if cacheable {
		bp.keyed, bp.shape, bp.key = true, shape, planCacheKeyOf(shape, c.Indexes)
	}
	for i, c := range cands {
		c.Close()
		if i != best {
			bp.rejected = append(bp.rejected, c)
		}
	}
	if bp.root, err = exec.Build(sols[best], batched, q.opts); err != nil {
		return nil, err
	}
	return bp, nil
}

// collScanPlan builds the collection scan the preference chose, with the
// index candidates as rejected plans (built, never run).
func collScanPlan(sols []*plan.Solution, batched, env exec.Env, q planReq, reason string) (*builtPlan, error) {
	sol := plan.CollScanSolution(q.sort != nil)
	root, err := exec.Build(sol, batched, q.opts)
	if err != nil {
		return nil, err
	}
	bp := &builtPlan{root: root, sol: sol, rejectedReason: reason}
	for _, s := range sols {
		st, err := exec.Build(s, env, q.opts)
		if err != nil {
			bp.close()
			return nil, err
		}
		bp.rejected = append(bp.rejected, st)
	}
	return bp, nil
}

// projFields returns the fields of a find projection that index keys
// could supply (PROJECTION_COVERED), or nil.
func projFields(o exec.Options) []string {
	if o.Projection == nil || o.Count || o.Keys {
		return nil
	}
	f, ok := plan.CoverableProjection(o.ProjectionDoc)
	if !ok {
		return nil
	}
	return f
}

// opExpired reports whether the operation bounded by ctx has ended: its
// context is done, or its deadline (maxTimeMS) has passed by the clock.
// The timer that cancels a context can fire several milliseconds late on
// a loaded machine, and a scan that ends in that gap must still fail with
// MaxTimeMSExpired, as mongod, which compares the clock, fails it.
func opExpired(ctx context.Context) bool {
	if ctx == nil {
		return false
	}
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}

// runPlan works root until EOF, calling fn with each result until fn
// returns false. It checks ctx every 256 works.
func runPlan(ctx context.Context, root exec.Stage, fn func(m *exec.Member) bool) error {
	slow := regex.SlowEpoch()
	for i := 0; ; i++ {
		// Also after a slow backtracking regex match (regex.SlowEpoch).
		if e := regex.SlowEpoch(); (i&255 == 0 || e != slow) && ctx != nil {
			slow = e
			if opExpired(ctx) {
				return errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
		}
		st, m, err := root.Work()
		if err != nil {
			return err
		}
		switch st {
		case exec.Advanced:
			if !fn(m) {
				return nil
			}
		case exec.EOF:
			// Once more at the end: an expression stopped by the deadline
			// (a $expr whose loop checked it) ends the scan as a non-match.
			if opExpired(ctx) {
				return errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
			return nil
		}
	}
}

// planIter streams a plan's results as an Iterator.
type planIter struct {
	ctx     context.Context
	release func()
	bp      *builtPlan
	done    bool
	n       int
	// showRecordID appends each result's record id as $recordId.
	showRecordID bool
	// returnKey replaces each result by its key in the scanned index,
	// whose fields are keyFields (none for a collection scan).
	returnKey bool
	keyFields []plan.Field
	// gen, when the context is a cursor's, tells that another command
	// drives the iterator (a getMore of an aggregate, whose stages do not
	// pass SetContext down): its figures then go to that command.
	gen     opstats.Generational
	lastGen uint64
	// slow is the regex.SlowEpoch of the last context check.
	slow uint64
}

// SetContext replaces the context that bounds the iterator's work (each
// getMore brings its own).
func (it *planIter) SetContext(ctx context.Context) {
	it.ctx = ctx
	if !it.done {
		it.bp.switchStats(opstats.From(ctx))
	}
}

// Next implements Iterator.
func (it *planIter) Next() (bsoncore.Document, error) {
	if it.done {
		return nil, nil
	}
	if it.gen != nil {
		if g := it.gen.Generation(); g != it.lastGen {
			it.lastGen = g
			it.bp.switchStats(opstats.From(it.ctx))
		}
	}
	for {
		it.n++
		// Also after a slow backtracking regex match (regex.SlowEpoch).
		if e := regex.SlowEpoch(); it.n&255 == 0 || e != it.slow {
			it.slow = e
			if opExpired(it.ctx) {
				return nil, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
		}
		st, m, err := it.bp.root.Work()
		if err != nil {
			it.Close()
			return nil, err
		}
		switch st {
		case exec.Advanced:
			doc := m.Doc
			if it.returnKey {
				// The key alone: mongod adds no $recordId to it.
				return indexKeyDoc(doc, it.keyFields), nil
			}
			if it.showRecordID {
				return withRecordID(doc, m.RID), nil
			}
			return doc, nil
		case exec.EOF:
			it.Close()
			if opExpired(it.ctx) { // as in runPlan
				return nil, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
			return nil, nil
		}
	}
}

// withRecordID returns a copy of doc with $recordId (a long) appended, as
// find's showRecordId shows it.
func withRecordID(doc bsoncore.Document, rid uint64) bsoncore.Document {
	out := make([]byte, 0, len(doc)+20)
	out = append(out, doc[:len(doc)-1]...)
	out = bsoncore.AppendInt64Element(out, "$recordId", int64(rid))
	out = append(out, 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}

// Close implements Iterator.
func (it *planIter) Close() error {
	if it.done {
		return nil
	}
	it.done = true
	it.bp.close()
	it.release()
	return nil
}

// planSource adapts a plan (without skip, limit or projection) to the
// recordSource of the write paths.
type planSource struct {
	bp *builtPlan
}

func (s *planSource) next() (uint64, []byte, bool, error) {
	for {
		st, m, err := s.bp.root.Work()
		if err != nil {
			return 0, nil, false, err
		}
		switch st {
		case exec.Advanced:
			return m.RID, m.Doc, true, nil
		case exec.EOF:
			return 0, nil, false, nil
		}
	}
}

func (s *planSource) close() { s.bp.close() }

// splitSort splits a parsed sort into the order a plan sorts by (nil for
// none, and for {$natural: ±1}) and the direction of a collection scan
// in record order (-1 for {$natural: -1}, else 0).
func splitSort(s *query.Sort) (*query.Sort, int) {
	if s == nil {
		return nil, 0
	}
	if dir, ok := s.Natural(); ok {
		if dir < 0 {
			return nil, -1
		}
		return nil, 0
	}
	if s.Empty() {
		return nil, 0
	}
	return s, 0
}

// plannedSource plans filter (and sortBy, when given) over c on r and
// returns its matches in plan order: sorted by sortBy when given
// ({$natural: -1}: record order backward). first says that the caller
// takes only the first match (a single-document write): a sorted plan is
// then limited to one, a top-k SORT that keeps one document instead of
// sorting every match, as explain shows it (fillFindReq) and mongod
// plans it; an unsorted one stops at the caller's first. hint is
// the statement's index hint (zero Value: none); an unknown index is
// BadValue, as the planner reports it for find.
// empty, when not nil, are the known-empty index ranges of a statement
// holding the collection's writer lock.
func (e *Engine) plannedSource(r storage.Reader, c *collection, filterDoc bsoncore.Document, f *query.Filter, sortBy *query.Sort, first bool, hint bsoncore.Value, empty exec.EmptyRanges, st *opstats.Stats) (recordSource, error) {
	sortBy, naturalDir := splitSort(sortBy)
	q := planReq{filterDoc: filterDoc, filter: f, sort: sortBy, naturalDir: naturalDir, hint: normHint(hint), empty: empty, stats: st}
	if sortBy != nil {
		q.opts.Sort = sortBy
		q.opts.SortOpts.AllowDiskUse = true
		if first {
			q.opts.Limit = 1
		}
	}
	bp, err := e.buildPlan(r, c, q)
	if err != nil {
		return nil, err
	}
	return &planSource{bp: bp}, nil
}

// normHint drops an empty hint ({} or ""), which MongoDB treats as no
// hint.
func normHint(h bsoncore.Value) bsoncore.Value {
	switch h.Type {
	case bsoncore.TypeEmbeddedDocument:
		if d, ok := h.DocumentOK(); ok && len(d) <= 5 {
			return bsoncore.Value{}
		}
	case bsoncore.TypeString:
		if s, ok := h.StringValueOK(); ok && s == "" {
			return bsoncore.Value{}
		}
	}
	return h
}
