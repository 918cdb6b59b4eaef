package engine

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
)

// Explain verbosities.
const (
	VerbosityQueryPlanner      = "queryPlanner"
	VerbosityExecutionStats    = "executionStats"
	VerbosityAllPlansExecution = "allPlansExecution"
)

// ExplainKind names the operation explained.
type ExplainKind int

// Explainable operations.
const (
	ExplainFindOp ExplainKind = iota
	ExplainCountOp
	ExplainDistinctOp
	ExplainUpdateOp
	ExplainDeleteOp
)

// ExplainSpec describes the operation to explain. Find fields serve find,
// update, delete and findAndModify (whose candidate search is a find with
// limit 1 and the operation's sort); Key is distinct's field.
type ExplainSpec struct {
	Kind      ExplainKind
	Find      FindSpec
	Key       string
	Verbosity string
	// Multi is set for updates and deletes of every match.
	Multi bool
}

// Explain plans (and for executionStats runs, without writing) an
// operation and returns {queryPlanner, executionStats?} in MongoDB 7.0's
// format. The caller adds command, serverInfo and ok.
func (e *Engine) Explain(ctx context.Context, db, coll string, spec ExplainSpec) (bsoncore.Document, error) {
	x, err := e.prepareExplain(ctx, db, coll, spec)
	if err != nil {
		return nil, err
	}
	defer x.close()
	if x.verbose() {
		// A single-document update or delete stops at its first match (the
		// write stage ends the plan; with a sort, the plan's limit 1 does).
		single := x.write() && !x.spec.Multi
		err := runPlan(ctx, x.bp.root, func(*exec.Member) bool {
			x.nReturned++
			return !single
		})
		if err != nil {
			return nil, err
		}
	}
	return narrowInts(x.render(true)), nil
}

// explainRun is an operation under explain: its plan, built over a
// snapshot, and what rendering it needs. Explain runs it to completion;
// ExplainQuery (explain_query.go) streams its results to a pipeline.
type explainRun struct {
	spec    ExplainSpec
	ns      string
	filter  *query.Filter
	bp      *builtPlan
	release func()
	closed  bool
	start   time.Time
	// nReturned counts the results the plan returned.
	nReturned int64
	// queryHash and planCacheKey are the plan cache's (plancache.go);
	// empty when the read has no shape (a missing collection, the oplog).
	queryHash, planCacheKey string
}

// prepareExplain checks the verbosity and builds the plan of an explained
// operation, with per-stage timing.
func (e *Engine) prepareExplain(ctx context.Context, db, coll string, spec ExplainSpec) (*explainRun, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	switch spec.Verbosity {
	case "", VerbosityQueryPlanner, VerbosityExecutionStats, VerbosityAllPlansExecution:
	default:
		return nil, errs.New(errs.FailedToParse, "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}")
	}
	if spec.Verbosity == "" {
		spec.Verbosity = VerbosityAllPlansExecution
	}
	fs := spec.Find
	// A find or count of local.oplog.rs explains the oplog's scan.
	oplogRead := e.isOplog(db, coll) && (spec.Kind == ExplainFindOp || spec.Kind == ExplainCountOp)
	if oplogRead {
		var err error
		if fs, err = oplogFindSpec(ctx, fs); err != nil { // oplogcoll.go
			return nil, err
		}
	}
	collator, err := e.statementCollator(db, coll, fs.Collation)
	if err != nil {
		return nil, err
	}
	filter, f, err := parseFilter(ctx, fs.Filter, fs.Let, collator)
	if err != nil {
		return nil, err
	}
	q := planReq{filterDoc: filter, filter: f, hint: fs.Hint, timing: true}
	switch spec.Kind {
	case ExplainCountOp:
		limit := fs.Limit
		if limit < 0 {
			limit = -limit
		}
		q = countReq(filter, f, fs.Skip, limit, fs.Hint, true)
	case ExplainDistinctOp:
		q = distinctReq(filter, f, spec.Key, true)
	default:
		if err := fillFindReq(&q, fs, spec); err != nil {
			return nil, err
		}
		q.opts.SortOpts.SpillDir = e.TempDir()
		q.preferCollScan = spec.Kind == ExplainFindOp
		q.db = e.db
	}
	x := &explainRun{spec: spec, ns: db + "." + coll, filter: f, release: func() {}, start: time.Now()}
	c := e.cat.Load().lookup(db, coll)
	if oplogRead {
		if c, q.records, err = e.readColl(ctx, db, coll, f); err != nil {
			return nil, err
		}
	}
	if c == nil {
		x.bp = &builtPlan{root: exec.NewEOF()}
		return x, nil
	}
	if q.records == nil {
		shape := planShapeOf(&q)
		x.queryHash = queryHashOf(shape)
		x.planCacheKey = fmt.Sprintf("%08X", planCacheKeyOf(shape, c.Indexes))
	}
	r, release, c := e.snapshotOf(ctx, c)
	bp, err := e.buildPlan(r, c, q)
	if err != nil {
		release()
		return nil, err
	}
	x.bp, x.release = bp, release
	return x, nil
}

// close releases the plan and its snapshot; the figures stay readable.
func (x *explainRun) close() {
	if x.closed {
		return
	}
	x.closed = true
	x.bp.close()
	x.release()
}

// verbose reports whether the plan runs (executionStats and
// allPlansExecution).
func (x *explainRun) verbose() bool { return x.spec.Verbosity != VerbosityQueryPlanner }

// write reports whether the operation is an update or a delete.
func (x *explainRun) write() bool {
	return x.spec.Kind == ExplainUpdateOp || x.spec.Kind == ExplainDeleteOp
}

// render returns {explainVersion?, queryPlanner, executionStats?} with the
// figures so far (executionTimeMillis is the time since the plan was
// built, so render once the plan has run).
func (x *explainRun) render(version bool) bsoncore.Document {
	spec, bp := x.spec, x.bp
	elapsed := time.Since(x.start)
	write := x.write()
	winning := exec.PlanDoc(bp.root, false)
	execStages := bp.root
	if write {
		winning = bsoncore.NewDocumentBuilder().AppendString("stage", writeStageName(spec.Kind)).AppendDocument("inputStage", winning).Build()
	}
	rejected := bsoncore.NewArrayBuilder()
	for _, r := range bp.rejected {
		d := exec.PlanDoc(r, false)
		if bp.rejectedReason != "" {
			d = withStringField(d, RejectedReasonField, bp.rejectedReason)
		}
		rejected.AppendDocument(d)
	}
	qp := bsoncore.NewDocumentBuilder().
		AppendInt32("plannerVersion", 1).
		AppendString("namespace", x.ns).
		AppendBoolean("indexFilterSet", bp.filterSet).
		AppendDocument("parsedQuery", x.filter.Serialize())
	if cd := collationDoc(x.filter.Collator()); cd != nil {
		// The query's collation, as mongod's queryPlanner shows it.
		qp.AppendDocument("collation", cd)
	}
	if x.queryHash != "" {
		qp.AppendString("queryHash", x.queryHash).AppendString("planCacheKey", x.planCacheKey)
	}
	qp.AppendBoolean("maxIndexedOrSolutionsReached", false).
		AppendBoolean("maxIndexedAndSolutionsReached", false).
		AppendBoolean("maxScansToExplodeReached", bp.sol != nil && bp.sol.HitScanLimit).
		AppendDocument("winningPlan", winning).
		AppendArray("rejectedPlans", rejected.Build())
	out := bsoncore.NewDocumentBuilder()
	if version {
		out.AppendString("explainVersion", "1")
	}
	out.AppendDocument("queryPlanner", qp.Build())
	if x.verbose() {
		nReturned := x.nReturned
		tot := exec.Sum(bp.root)
		stages := exec.PlanDoc(execStages, true)
		if write {
			stages = writeStageDoc(spec.Kind, nReturned, elapsed, stages)
		}
		if spec.Kind == ExplainCountOp || write {
			nReturned = 0 // COUNT, UPDATE and DELETE return no documents
		}
		es := bsoncore.NewDocumentBuilder().
			AppendBoolean("executionSuccess", true).
			AppendInt64("nReturned", nReturned).
			AppendInt64("executionTimeMillis", elapsed.Milliseconds()).
			AppendInt64("totalKeysExamined", tot.KeysExamined).
			AppendInt64("totalDocsExamined", tot.DocsExamined).
			AppendDocument("executionStages", stages)
		if spec.Verbosity == VerbosityAllPlansExecution {
			all := bsoncore.NewArrayBuilder()
			for _, r := range bp.rejected {
				t := exec.Sum(r)
				all.AppendDocument(bsoncore.NewDocumentBuilder().
					AppendInt64("nReturned", r.Stats().Advanced).
					AppendInt64("executionTimeMillisEstimate", 0).
					AppendInt64("totalKeysExamined", t.KeysExamined).
					AppendInt64("totalDocsExamined", t.DocsExamined).
					AppendDocument("executionStages", exec.PlanDoc(r, true)).Build())
			}
			es.AppendArray("allPlansExecution", all.Build())
		}
		out.AppendDocument("executionStats", es.Build())
	}
	return out.Build()
}

// withStringField returns d with key: s appended.
func withStringField(d bsoncore.Document, key, s string) bsoncore.Document {
	out := append([]byte(nil), d[:len(d)-1]...)
	out = bsoncore.AppendStringElement(out, key, s)
	out = append(out, 0)
	bsoncore.UpdateLength(out, 0, int32(len(out)))
	return out
}

// writeStageName is the root stage of an update or delete plan.
func writeStageName(k ExplainKind) string {
	if k == ExplainDeleteOp {
		return "DELETE"
	}
	return "UPDATE"
}

// writeStageDoc renders the UPDATE or DELETE stage of executionStages above
// input, with the figures mongod 7.0 prints: nWouldDelete for DELETE;
// nMatched, nWouldModify and nWouldUpsert for UPDATE.
func writeStageDoc(k ExplainKind, n int64, elapsed time.Duration, input bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendString("stage", writeStageName(k)).
		AppendInt64("nReturned", 0).
		AppendInt64("executionTimeMillisEstimate", elapsed.Milliseconds()).
		AppendInt64("works", n+1).
		AppendInt64("advanced", 0).
		AppendInt64("needTime", n).
		AppendInt64("needYield", 0).
		AppendInt64("saveState", 0).
		AppendInt64("restoreState", 0).
		AppendBoolean("isEOF", true)
	if k == ExplainDeleteOp {
		b.AppendInt64("nWouldDelete", n)
	} else {
		b.AppendInt64("nMatched", n).
			AppendInt64("nWouldModify", n).
			AppendInt64("nWouldUpsert", 0)
	}
	return b.AppendDocument("inputStage", input).Build()
}

// fillFindReq fills a plan request from a find (or the candidate search of
// an update, delete or findAndModify).
func fillFindReq(q *planReq, fs FindSpec, spec ExplainSpec) error {
	q.min, q.max = fs.Min, fs.Max
	if len(fs.Sort) > 5 {
		s, err := query.ParseSort(fs.Sort)
		if err != nil {
			return err
		}
		var dir int
		if q.sort, dir = splitSort(s.Collated(q.filter.Collator())); q.sort != nil {
			q.sortDoc = fs.Sort
		}
		if dir < 0 {
			q.naturalDir = -1
		}
	}
	limit := fs.Limit
	if limit < 0 {
		limit = -limit
	}
	// A single-document update, delete or findAndModify with a sort plans
	// limit 1 (a top-k sort, or LIMIT above an index-provided order), as
	// mongod's parsed update/delete does; without a sort there is no limit
	// stage: the write stage stops after the first match.
	if (spec.Kind == ExplainUpdateOp || spec.Kind == ExplainDeleteOp) && !spec.Multi {
		limit = 0
		if q.sort != nil {
			limit = 1
		}
	}
	q.opts = exec.Options{Sort: q.sort, SortDoc: q.sortDoc, Skip: fs.Skip, Limit: limit,
		SortOpts: exec.SortOptions{AllowDiskUse: fs.AllowDiskUse}}
	if len(fs.Projection) > 5 && spec.Kind == ExplainFindOp {
		p, err := query.ParseProjection(fs.Projection)
		if err != nil {
			return err
		}
		q.opts.Projection, q.opts.ProjectionDoc = p, fs.Projection
	}
	return nil
}

// ExplainQueryPlanner returns the queryPlanner section of a find, for
// aggregate's $cursor explain.
func (e *Engine) ExplainQueryPlanner(ctx context.Context, db, coll string, spec FindSpec) (bsoncore.Document, error) {
	d, err := e.Explain(ctx, db, coll, ExplainSpec{Kind: ExplainFindOp, Find: spec, Verbosity: VerbosityQueryPlanner})
	if err != nil {
		return nil, err
	}
	return d.Lookup("queryPlanner").Document(), nil
}

// narrowInts rewrites the int64 values of an explain document that fit in
// an int32 as int32s, as mongod prints its counters (mongosh then shows 25,
// not Long('25')).
func narrowInts(d bsoncore.Document) bsoncore.Document {
	elems, err := d.Elements()
	if err != nil {
		return d
	}
	b := bsoncore.NewDocumentBuilder()
	for _, e := range elems {
		if userFields[e.Key()] {
			b.AppendValue(e.Key(), e.Value())
			continue
		}
		b.AppendValue(e.Key(), narrowValue(e.Value()))
	}
	return b.Build()
}

// userFields hold user documents, which keep their types.
var userFields = map[string]bool{"parsedQuery": true, "filter": true, "keyPattern": true,
	"sortPattern": true, "transformBy": true, "startKey": true, "endKey": true}

func narrowValue(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeInt64:
		if n := v.Int64(); n >= -1<<31 && n < 1<<31 {
			return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(n))}
		}
	case bsoncore.TypeEmbeddedDocument:
		return bsoncore.Value{Type: v.Type, Data: narrowInts(v.Document())}
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		ab := bsoncore.NewArrayBuilder()
		for _, x := range vals {
			ab.AppendValue(narrowValue(x))
		}
		return bsoncore.Value{Type: v.Type, Data: ab.Build()}
	}
	return v
}
