package server

import (
	"time"

	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/agg/aggengine"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/changestream"
	"github.com/lodedb/lode/internal/cursor"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

func init() {
	register(command{names: []string{"aggregate"}, handler: cmdAggregate, authz: requires(bypassNeeds(aggregateNeeds)),
		api: apiV1, inTxn: yes, retryable: no, snapshotRead: yes, writeConcern: no, explain: &explainer{self: explainAggregate}, applyOps: no,
		observe: observed(opCommand, onColl, cursorReply),
		shape:   &shapeForm{pipeline: true},
		// Fields its IDL marks unstable or internal: refused with
		// apiStrict: true.
		apiUnstable: setOf("explain", "needsMerge", "fromMongos", "$queryOptions",
			"$_requestReshardingResumeToken", "runtimeConstants",
			"isMapReduceCommand", "collectionUUID", "$_passthroughToShard",
			"encryptionInformation", "$_externalDataSources", "sampleId",
			"stmtId", "$_isClusterQueryWithoutShardKeyCmd",
			"$_generateV2ResumeTokens"),
		apiStrictArgs: strictAggregate, writeConcernWhen: pipelineWrites})
}

// strictAggregate refuses, under apiStrict: true, the stages of the
// pipeline API Version 1 excludes (apiversion.go).
func strictAggregate(req *Request) error {
	if v, err := req.Cmd.LookupErr("pipeline"); err == nil && v.Type == bsoncore.TypeArray {
		return strictPipeline(v.Array())
	}
	return nil
}

// pipelineWrites reports whether the aggregate's pipeline has a stage
// that writes ($out, $merge): it then takes a write concern.
func pipelineWrites(req *Request) bool {
	arr, ok := req.Cmd.Lookup("pipeline").ArrayOK()
	if !ok {
		return false
	}
	vals, _ := arr.Values()
	for _, v := range vals {
		if d, ok := v.DocumentOK(); ok {
			if el, err := d.IndexErr(0); err == nil {
				if st, _ := agg.StageTraits(el.Key()); st.Writes {
					return true
				}
			}
		}
	}
	return false
}

// aggregateArgs are the parsed options of the aggregate command.
type aggregateArgs struct {
	pipeline     []bsoncore.Document
	hasPipeline  bool
	bypass       bool // bypassDocumentValidation for $out and $merge
	hasCursor    bool
	batchSize    int64
	hasBatch     bool
	explain      bool
	allowDiskUse bool
	let          bsoncore.Document
	hint         bsoncore.Value
	collation    bsoncore.Document
}

// cmdAggregate runs an aggregation pipeline on a collection, or at
// database level with {aggregate: 1} (for $documents).
func cmdAggregate(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := aggregateTarget(req)
	if err != nil {
		return nil, err
	}
	a := aggregateArgs{allowDiskUse: s.eng.Params().AllowDiskUseByDefault.Load()}
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "pipeline":
			a.pipeline, err = argDocArray(req.Name, k, v)
			a.hasPipeline = true
		case "cursor":
			a.batchSize, a.hasBatch, err = parseCursorOpt(req.Name, v)
			a.hasCursor = true
		case "explain":
			a.explain, err = argBool(req.Name, k, v)
		case "allowDiskUse":
			a.allowDiskUse, err = argBool(req.Name, k, v)
		case "let":
			a.let, err = argDoc(req.Name, k, v)
		case "hint":
			if v.Type != bsoncore.TypeString && v.Type != bsoncore.TypeEmbeddedDocument {
				return true, wrongType(req.Name, k, v, "[string, object]")
			}
			a.hint = v
		case "collation":
			a.collation, err = argCollationDoc(req.Name, k, v)
		case "bypassDocumentValidation":
			a.bypass, err = argBool(req.Name, k, v)
		case "collectionUUID":
			if _, _, ok := v.BinaryOK(); !ok {
				return true, wrongType(req.Name, k, v, "uuid")
			}
			err = s.checkCollectionUUID(req.DB, coll, v)
		case "fromMongos", "needsMerge", "$_requestReshardingResumeToken",
			"$_isClusterQueryWithoutShardKeyCmd", "$_generateV2ResumeTokens":
			// Internal flags that change the shape of the reply for
			// mongos, resharding or resumable scans; false is the default.
			var on bool
			if on, err = argBool(req.Name, k, v); err == nil && on {
				err = errs.New(errs.NotImplemented, "aggregate.%s is not supported by Lode: it is an internal option of sharded clusters and resharding", k)
			}
		case "exchange", "$_passthroughToShard", "runtimeConstants":
			err = errs.New(errs.NotImplemented, "aggregate.%s is not supported by Lode: it is an internal option of mongos and sharded clusters", k)
		case "encryptionInformation":
			err = errs.New(errs.NotImplemented, "aggregate.encryptionInformation is not supported by Lode: it has no queryable encryption")
		case "$_externalDataSources":
			err = errs.New(errs.NotImplemented, "aggregate.$_externalDataSources is not supported by Lode: it reads no external data sources")
		case "isMapReduceCommand", "sampleId", "stmtId":
			// isMapReduceCommand only changes which errors mapReduce
			// reports; sampleId and stmtId are for query sampling and
			// writes without shard key in sharded clusters.
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	if !a.hasPipeline {
		return nil, errs.New(errs.Location40414, "BSON field 'aggregate.pipeline' is missing but a required field")
	}
	if !a.hasCursor && !a.explain {
		return nil, errs.New(errs.FailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	// On a view, the view's resolved pipeline runs first, on the
	// collection the views lead to (views.go); the cursor keeps the view's
	// namespace.
	viewName := ""
	if coll != "" {
		base, vpipe, isView, err := s.resolveView(ctx, req.DB, coll)
		if err != nil {
			return nil, err
		}
		if isView && len(a.pipeline) > 0 && len(a.pipeline[0]) > 5 && a.pipeline[0].Index(0).Key() == "$collStats" {
			// $collStats of a time series collection reads its buckets'
			// figures (views_agg.go's Stats), not through the view.
			if o, err := s.timeseriesOf(ctx, req.DB, coll); err != nil {
				return nil, err
			} else if o != nil {
				isView = false
			}
		}
		if isView {
			if len(a.pipeline) > 0 && len(a.pipeline[0]) > 5 {
				// A stage that reads the collection itself
				// ($changeStream, $collStats, $indexStats).
				if st, known := agg.StageTraits(a.pipeline[0].Index(0).Key()); known && !st.OverView {
					return nil, viewWriteErr(req.DB, coll)
				}
			}
			// A view's operations use the view's collation, not the
			// collection's default (views_collation.go).
			if a.collation, err = s.viewCollation(ctx, req.DB, coll, a.collation); err != nil {
				return nil, err
			}
			viewName, coll = coll, base
			a.pipeline = append(vpipe, a.pipeline...)
		}
	}
	epc := expr.NewParseContext()
	vars := expr.NewVars(time.Now())
	pc := &agg.ParseContext{Expr: epc, DB: req.DB, Coll: coll, AllowDiskUse: a.allowDiskUse, Hint: a.hint, TempDir: s.eng.TempDir(),
		Params: s.eng.Params(), SessionUser: s.currentUser(ctx, req), AuthOn: s.cfg.Auth, Collation: a.collation,
		BucketSpan: s.bucketSpan(ctx)}
	if pc.Collator, err = s.eng.StatementCollator(req.DB, coll, a.collation); err != nil {
		return nil, err
	}
	epc.Collator = pc.Collator // let's expressions compare under it too
	if a.let != nil {
		if err := bindLet(a.let, epc, vars); err != nil {
			return nil, err
		}
	}
	// The pushed-down query carries the collation only when it is not
	// the collection's default (which the engine applies by itself).
	pc.Collation = nil
	if def, _ := s.eng.StatementCollator(req.DB, coll, nil); def != pc.Collator {
		pc.Collation = simpleCollationDoc
		if pc.Collator != nil {
			pc.Collation = pc.Collator.Spec().Document()
		}
	}
	p, err := agg.Parse(a.pipeline, pc)
	if err != nil {
		return nil, err
	}
	if p.Writes() {
		if err := checkWriteStageReadConcern(req, a.pipeline); err != nil {
			return nil, err
		}
	}
	cat := aggengine.New(s.eng)
	cat.Explain = s.eng.ExplainQueryPlanner // the planner's queryPlanner for $cursor
	cat.Ops = s.currentOps                  // $currentOp (currentop_agg.go)
	cat.QueryStatsFn = s.queryStatsDocs     // $queryStats (querystats.go)
	cat.Sessions = s.localSessions          // $listLocalSessions (sessions_coll.go)
	var stream *changestream.Reader
	cat.ChangeStreams = s.openChangeStream(&stream) // changestream.go
	if a.explain {
		return explainPipeline(ctx, req, p, s.withViews(cat), vars)
	}
	sctx := cursor.NewSwitchContext(engine.WithBypassValidation(ctx, a.bypass))
	nsName := ns(req.DB, coll)
	if viewName != "" {
		nsName = ns(req.DB, viewName)
	}
	if coll == "" {
		nsName = req.DB + ".$cmd.aggregate"
	}
	it, err := p.Run(sctx, s.withViews(cat), vars) // views resolve (views_agg.go)
	if err != nil {
		return nil, viewTargetErr(err, p.Writes(), nsName)
	}
	if p.Writes() {
		// $out and $merge run to completion before the reply.
		for {
			d, err := it.Next()
			if err != nil {
				it.Close()
				return nil, viewTargetErr(err, true, nsName)
			}
			if d == nil {
				break
			}
		}
		it.Close()
		return s.cursorReply("firstBatch", 0, nsName, nil), nil
	}
	if stream != nil {
		c := cursor.New(nsName, &changeStreamSource{it: it, r: stream})
		c.Ctx = sctx
		c.Tailable, c.AwaitData, c.OutlivesNamespace = true, true, true
		return s.firstBatch(ctx, c, a.batchSize, a.hasBatch, false)
	}
	c := cursor.New(nsName, it)
	c.Ctx = sctx
	return s.firstBatch(ctx, c, a.batchSize, a.hasBatch, false)
}

// aggregateTarget returns the collection of an aggregate command, or ""
// for {aggregate: 1}.
func aggregateTarget(req *Request) (string, error) {
	v := req.Cmd.Index(0).Value()
	if bsonutil.IsNumber(v.Type) {
		if bsonutil.AsFloat64(v) == 1 {
			return "", nil
		}
		return "", errs.New(errs.FailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
	}
	if v.Type != bsoncore.TypeString {
		return "", errs.New(errs.FailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
	}
	return collName(req)
}

// bindLet defines the command's let variables and binds their values,
// each evaluated once as a constant expression.
func bindLet(let bsoncore.Document, epc *expr.ParseContext, vars *expr.Vars) error {
	elems, err := let.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid let: %v", err)
	}
	empty := bsoncore.NewDocumentBuilder().Build()
	for _, el := range elems {
		e, err := expr.Parse(el.Value(), epc)
		if err != nil {
			return err
		}
		v, err := e.Eval(empty, vars)
		if err != nil {
			return err
		}
		vars.Set(epc.Define(el.Key()), v)
	}
	return nil
}

// checkWriteStageReadConcern refuses the read concerns mongod does not
// allow with $out and $merge: linearizable, and snapshot outside a
// transaction.
func checkWriteStageReadConcern(req *Request, pipeline []bsoncore.Document) error {
	rc, err := req.Cmd.LookupErr("readConcern")
	if err != nil || rc.Type != bsoncore.TypeEmbeddedDocument {
		return nil
	}
	stage := "$out"
	if n := len(pipeline); n > 0 {
		if el, err := pipeline[n-1].IndexErr(0); err == nil {
			stage = el.Key()
		}
	}
	switch readConcernLevel(rc.Document()) {
	case "linearizable":
		return errs.New(errs.InvalidOptions, "%s cannot be used with a 'linearizable' read concern level", stage)
	case "snapshot":
		if _, err := req.Cmd.LookupErr("autocommit"); err != nil {
			return errs.New(errs.InvalidOptions, "%s cannot be used with a 'snapshot' read concern level outside a transaction", stage)
		}
	}
	return nil
}
