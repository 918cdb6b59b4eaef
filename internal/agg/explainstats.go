package agg

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
)

// Explain verbosities.
const (
	VerbosityQueryPlanner      = "queryPlanner"
	VerbosityExecutionStats    = "executionStats"
	VerbosityAllPlansExecution = "allPlansExecution"
)

// QueryExplain is a query of the pipeline to plan (and, past the
// queryPlanner verbosity, run) under explain.
type QueryExplain struct {
	Spec FindSpec
	// Count plans the count of Spec's matches (after skip and limit)
	// instead of the matches themselves.
	Count     bool
	Verbosity string
}

// QueryTotals are the figures of one query that $lookup adds up.
type QueryTotals struct {
	KeysExamined, DocsExamined int64
	// CollScan is set when the plan scans the collection.
	CollScan bool
	// Indexes names the indexes the plan scans.
	Indexes []string
}

// ExplainedQuery is a query planned under explain. Its results stream
// like Find's (none at the queryPlanner verbosity, none for a count);
// once it is drained, Explain renders it.
type ExplainedQuery interface {
	Iterator
	// Explain renders {queryPlanner, executionStats?} as find's explain
	// does (executionStats past the queryPlanner verbosity, with
	// allPlansExecution at that one).
	Explain() bsoncore.Document
	// Counted is what a count counted.
	Counted() int64
	// Totals are the keys and documents examined so far and what the plan
	// scans.
	Totals() QueryTotals
}

// QueryExplainer is a Catalog that can plan and run queries under
// explain. Without it, a pipeline's explain renders the queryPlanner of
// Catalog.ExplainFind and no figures for its $cursor stage.
type QueryExplainer interface {
	ExplainQuery(ctx context.Context, db, coll string, q QueryExplain) (ExplainedQuery, error)
}

// ExplainOptions are the options of ExplainWith.
type ExplainOptions struct {
	// Verbosity is one of the Verbosity constants; "" is queryPlanner.
	Verbosity string
	// Vars binds the command's let variables (nil for none).
	Vars *expr.Vars
}

// execVerbosity reports whether v runs the pipeline.
func execVerbosity(v string) bool {
	return v == VerbosityExecutionStats || v == VerbosityAllPlansExecution
}

// stageStats are the figures of one stage of an explained run.
type stageStats struct {
	n     int64
	nanos int64
	bytes int64 // size of the documents returned
	spill spillStats
	// $lookup: the figures of its queries.
	keys, docs, collScans int64
	indexes               []string
	// window: $_internalSetWindowFields' memory figures (windowstage.go).
	window windowMem
}

// tracer gathers the figures of an explained run: those of the $cursor
// stage (the pushed-down query) and of each stage after it.
type tracer struct {
	cursor stageStats
	// stages holds one entry per stage of the pipeline, after the entry of
	// the stage a count answers (countOnly) when there is one.
	stages []stageStats
	// current is the index in stages of the stage whose Next is running,
	// -1 outside any; a query opened meanwhile is that stage's ($lookup).
	current int
	// topPending is set until the pipeline has opened its pushed-down
	// query: the first Find or Count of the run (the pipeline opens its
	// source before any stage can run a query of its own). top is that
	// query planned under explain (nil without a QueryExplainer).
	topPending bool
	top        ExplainedQuery
	qe         QueryExplainer
}

// traced returns a copy of p whose stages record their figures in tr. A
// leading tap stands for the stage a count answers: it sees the
// documents the count produced.
func (p *Pipeline) traced(tr *tracer) *Pipeline {
	tp := *p
	tp.stages = nil
	i := 0
	if p.countOnly != nil {
		tp.stages = append(tp.stages, &tracedStage{stage: tapStage{}, tr: tr, i: i})
		i++
	}
	for _, s := range p.stages {
		t := &tracedStage{stage: s, tr: tr, i: i}
		if isSource(s) {
			tp.stages = append(tp.stages, tracedSource{t})
		} else {
			tp.stages = append(tp.stages, t)
		}
		i++
	}
	tr.stages = make([]stageStats, i)
	return &tp
}

// tracedStage counts and times a stage's output. Like mongod's
// executionTimeMillisEstimate, the time includes that of the stages
// before it, which run inside its Next calls.
type tracedStage struct {
	stage
	tr *tracer
	i  int
}

// tracedSource is a tracedStage around a source stage.
type tracedSource struct{ *tracedStage }

func (tracedSource) source() {}

func (t *tracedStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	st := &t.tr.stages[t.i]
	if writes(t.stage.name()) {
		// Explain writes nothing: the stage reads its input and returns no
		// documents, as mongod's writer stages do under explain.
		return &traceIter{it: &funcIter{next: func() (bsoncore.Document, error) {
			for {
				d, err := in.Next()
				if err != nil || d == nil {
					return nil, err
				}
			}
		}, close: in.Close}, st: st, tr: t.tr, i: t.i}, nil
	}
	// The stage runs with its own copy of the run's context (the same
	// ctx, catalog, variables and parse context) whose spillers count
	// into its figures.
	rc2 := *rc
	rc2.spill = &st.spill
	rc2.winMem = &st.window
	out, err := t.stage.open(&rc2, in)
	if err != nil {
		return nil, err
	}
	return &traceIter{it: out, st: st, tr: t.tr, i: t.i}, nil
}

// traceIter records the documents an iterator returns and the time spent
// in its Next.
type traceIter struct {
	it Iterator
	st *stageStats
	tr *tracer
	i  int
}

func (t *traceIter) Next() (bsoncore.Document, error) {
	prev := t.tr.current
	t.tr.current = t.i
	start := time.Now()
	d, err := t.it.Next()
	t.st.nanos += int64(time.Since(start))
	t.tr.current = prev
	if d != nil {
		t.st.n++
		t.st.bytes += int64(len(d))
	}
	return d, err
}

func (t *traceIter) Close() error { return t.it.Close() }

// tapStage passes its input through: the traced stand-in for the stage a
// count answers.
type tapStage struct{}

func (tapStage) name() string                                  { return "" }
func (tapStage) spec() bsoncore.Document                       { return nil }
func (tapStage) open(_ *runCtx, in Iterator) (Iterator, error) { return in, nil }

// traceCatalog serves the explained pushed-down query to the pipeline
// and runs the queries of $lookup under explain to add up their figures.
// It never writes.
type traceCatalog struct {
	Catalog
	tr *tracer
}

// Find implements Catalog.
func (c *traceCatalog) Find(ctx context.Context, db, coll string, spec FindSpec) (Iterator, error) {
	tr := c.tr
	if tr.topPending {
		tr.topPending = false
		var it Iterator = tr.top
		if tr.top == nil {
			var err error
			if it, err = c.Catalog.Find(ctx, db, coll, spec); err != nil {
				return nil, err
			}
		}
		return &traceIter{it: it, st: &tr.cursor, tr: tr, i: tr.current}, nil
	}
	if tr.current >= 0 && tr.qe != nil {
		q, err := tr.qe.ExplainQuery(ctx, db, coll, QueryExplain{Spec: spec, Verbosity: VerbosityExecutionStats})
		if err != nil {
			return nil, err
		}
		return &totalsIter{q: q, st: &tr.stages[tr.current]}, nil
	}
	return c.Catalog.Find(ctx, db, coll, spec)
}

// Count implements Catalog.
func (c *traceCatalog) Count(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value) (int64, error) {
	tr := c.tr
	if tr.topPending {
		tr.topPending = false
		start := time.Now()
		var n int64
		if q := tr.top; q != nil {
			for {
				d, err := q.Next()
				if err != nil {
					return 0, err
				}
				if d == nil {
					break
				}
			}
			n = q.Counted()
		} else {
			var err error
			if n, err = c.Catalog.Count(ctx, db, coll, filter, skip, limit, hint); err != nil {
				return 0, err
			}
		}
		tr.cursor.n = n
		tr.cursor.nanos += int64(time.Since(start))
		return n, nil
	}
	return c.Catalog.Count(ctx, db, coll, filter, skip, limit, hint)
}

// The writes of $out and $merge never reach an explained run's catalog
// (tracedStage drains their input instead); these are a safety net.

func (c *traceCatalog) Insert(context.Context, string, string, []bsoncore.Document) error {
	return errExplainWrite
}
func (c *traceCatalog) Update(context.Context, string, string, bsoncore.Document, bsoncore.Document) error {
	return errExplainWrite
}
func (c *traceCatalog) CreateCollection(context.Context, string, string) error {
	return errExplainWrite
}
func (c *traceCatalog) DropCollection(context.Context, string, string) error { return errExplainWrite }
func (c *traceCatalog) PrepareOut(context.Context, string, string, string) error {
	return errExplainWrite
}
func (c *traceCatalog) RenameCollection(context.Context, string, string, string, string, bool) error {
	return errExplainWrite
}

var errExplainWrite = explainWriteError{}

type explainWriteError struct{}

func (explainWriteError) Error() string { return "agg: explain must not write" }

// totalsIter adds a $lookup query's figures to its stage's once the query
// is closed.
type totalsIter struct {
	q    ExplainedQuery
	st   *stageStats
	done bool
}

func (t *totalsIter) Next() (bsoncore.Document, error) { return t.q.Next() }

func (t *totalsIter) Close() error {
	if !t.done {
		t.done = true
		tot := t.q.Totals()
		t.st.keys += tot.KeysExamined
		t.st.docs += tot.DocsExamined
		if tot.CollScan {
			t.st.collScans++
		}
		for _, ix := range tot.Indexes {
			if !containsString(t.st.indexes, ix) {
				t.st.indexes = append(t.st.indexes, ix)
			}
		}
	}
	return t.q.Close()
}

func containsString(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// runTraced runs the pipeline to completion with tr recording its
// figures, discarding the results. It returns the drained pipeline for the
// caller to close once it has rendered the figures (the plans of the
// queries stay open until then).
func (p *Pipeline) runTraced(ctx context.Context, cat Catalog, vars *expr.Vars, tr *tracer) (Iterator, error) {
	if vars == nil {
		vars = expr.NewVars(time.Now())
	}
	tr.current = -1
	tr.topPending = p.push != nil
	tp := p.traced(tr)
	vars.SetContext(ctx)
	vars.SetBudget(p.pc.params().Budget)
	rc := &runCtx{ctx: ctx, cat: &traceCatalog{Catalog: cat, tr: tr}, vars: vars, pc: p.pc}
	it, err := tp.run(rc)
	if err != nil {
		return nil, err
	}
	for n := int64(0); ; n++ {
		d, err := nextChecked(ctx, it, n)
		if err != nil {
			it.Close()
			return nil, err
		}
		if d == nil {
			return it, nil
		}
	}
}

// stageExplain renders a stage's explain entry: its spec, then at the
// execution verbosities the figures mongod 7.0 reports for it. inBytes is
// the size of the documents the stage read.
func stageExplain(spec bsoncore.Document, st *stageStats, inBytes int64, exec bool) bsoncore.Document {
	if !exec {
		return spec
	}
	name := ""
	if el, err := spec.IndexErr(0); err == nil {
		name = el.Key()
	}
	b := bsoncore.NewDocumentBuilder()
	elems, _ := spec.Elements()
	for _, e := range elems {
		b.AppendValue(e.Key(), e.Value())
	}
	if d := stageDefs[name]; d != nil {
		d.explain(b, st, inBytes)
	}
	b.AppendInt64("nReturned", st.n).
		AppendInt64("executionTimeMillisEstimate", st.nanos/1e6)
	return b.Build()
}
