package server

import (
	"context"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/agg/aggengine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/timeseries"
)

// viewCatalog is the aggregation catalog with views: a read of a view
// from inside a pipeline ($lookup, $unionWith) runs the
// view's resolved pipeline followed by the read, and writes, $collStats
// and $indexStats on a view fail as mongod's do. Other namespaces go to
// next (the engine's catalog, local.oplog.rs included).
type viewCatalog struct {
	*aggengine.Catalog // the optional interfaces (change streams, $currentOp, explain)
	next               agg.Catalog
	s                  *Server
}

// withViews wraps an aggregation catalog so that it resolves views.
func (s *Server) withViews(c *aggengine.Catalog) agg.Catalog {
	return viewCatalog{Catalog: c, next: c, s: s}
}

// viewRead runs db.view's resolved pipeline followed by spec.
func (c viewCatalog) viewRead(ctx context.Context, db, view string, spec agg.FindSpec) (agg.Iterator, bool, error) {
	base, pipe, isView, err := c.s.resolveView(ctx, db, view)
	if err != nil || !isView {
		return nil, false, err
	}
	pipe = append(pipe, findStages(spec.Filter, spec.Sort, spec.Projection, spec.Skip, spec.Limit)...)
	// The read runs under the view's collation, which must be the
	// pipeline's (none given: simple).
	given := spec.Collation
	if given == nil {
		given = simpleCollationDoc
	}
	vc, err := c.s.viewCollation(ctx, db, view, given)
	if err != nil {
		return nil, true, err
	}
	pc := &agg.ParseContext{Expr: expr.NewParseContext(), DB: db, Coll: base, AllowDiskUse: spec.AllowDiskUse,
		TempDir: c.s.eng.TempDir(), Params: c.s.eng.Params(), Collation: vc, BucketSpan: c.s.bucketSpan(ctx)}
	if pc.Collator, err = c.s.eng.StatementCollator(db, base, vc); err != nil {
		return nil, true, err
	}
	p, err := agg.Parse(pipe, pc)
	if err != nil {
		return nil, true, err
	}
	it, err := p.Run(ctx, c, expr.NewVars(time.Now()))
	return it, true, err
}

// findStages are the aggregation stages of a find's filter, sort,
// projection, skip and limit, in the order mongod converts a find on a
// view to an aggregation.
func findStages(filter, sort, projection bsoncore.Document, skip, limit int64) []bsoncore.Document {
	var out []bsoncore.Document
	stage := func(name string, v bsoncore.Value) {
		out = append(out, bsoncore.NewDocumentBuilder().AppendValue(name, v).Build())
	}
	docV := func(d bsoncore.Document) bsoncore.Value {
		return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
	}
	if len(filter) > 5 {
		stage("$match", docV(filter))
	}
	if len(sort) > 5 {
		stage("$sort", docV(sort))
	}
	if skip > 0 {
		stage("$skip", bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, skip)})
	}
	if limit > 0 {
		stage("$limit", bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, limit)})
	}
	if len(projection) > 5 {
		stage("$project", docV(projection))
	}
	return out
}

// Find implements agg.Catalog.
func (c viewCatalog) Find(ctx context.Context, db, coll string, spec agg.FindSpec) (agg.Iterator, error) {
	if it, isView, err := c.viewRead(ctx, db, coll, spec); isView || err != nil {
		return it, err
	}
	return c.next.Find(ctx, db, coll, spec)
}

// FindPartitions implements agg.Partitioner: a view is read whole.
func (c viewCatalog) FindPartitions(ctx context.Context, db, coll string, spec agg.FindSpec, n int) ([]agg.Iterator, error) {
	if v, err := c.s.lookupView(ctx, db, coll); err != nil || v != nil {
		return nil, err
	}
	return c.Catalog.FindPartitions(ctx, db, coll, spec, n)
}

// Count implements agg.Catalog.
func (c viewCatalog) Count(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value) (int64, error) {
	it, isView, err := c.viewRead(ctx, db, coll, agg.FindSpec{Filter: filter, Skip: skip, Limit: limit})
	if err != nil {
		return 0, err
	}
	if !isView {
		return c.next.Count(ctx, db, coll, filter, skip, limit, hint)
	}
	defer it.Close()
	var n int64
	for {
		d, err := it.Next()
		if err != nil {
			return 0, err
		}
		if d == nil {
			return n, nil
		}
		n++
	}
}

func (c viewCatalog) refuse(ctx context.Context, db, coll string) error {
	return c.s.refuseView(ctx, db, coll)
}

// Insert implements agg.Catalog.
func (c viewCatalog) Insert(ctx context.Context, db, coll string, docs []bsoncore.Document) error {
	if err := c.refuse(ctx, db, coll); err != nil {
		return err
	}
	return c.next.Insert(ctx, db, coll, docs)
}

// Update implements agg.Catalog.
func (c viewCatalog) Update(ctx context.Context, db, coll string, filter, update bsoncore.Document) error {
	if err := c.refuse(ctx, db, coll); err != nil {
		return err
	}
	return c.next.Update(ctx, db, coll, filter, update)
}

// CreateCollection implements agg.Catalog.
func (c viewCatalog) CreateCollection(ctx context.Context, db, coll string) error {
	if err := c.refuse(ctx, db, coll); err != nil {
		return err
	}
	return c.next.CreateCollection(ctx, db, coll)
}

// DropCollection implements agg.Catalog.
func (c viewCatalog) DropCollection(ctx context.Context, db, coll string) error {
	return c.next.DropCollection(ctx, db, coll)
}

// PrepareOut implements agg.Catalog: $out may not replace a view.
func (c viewCatalog) PrepareOut(ctx context.Context, db, target, tmp string) error {
	if err := c.refuse(ctx, db, target); err != nil {
		return err
	}
	return c.next.PrepareOut(ctx, db, target, tmp)
}

// RenameCollection implements agg.Catalog.
func (c viewCatalog) RenameCollection(ctx context.Context, fromDB, fromColl, toDB, toColl string, dropTarget bool) error {
	if err := c.refuse(ctx, toDB, toColl); err != nil {
		return err
	}
	return c.next.RenameCollection(ctx, fromDB, fromColl, toDB, toColl, dropTarget)
}

// Stats implements agg.Catalog.
func (c viewCatalog) Stats(ctx context.Context, db, coll string) (agg.CollStats, error) {
	if o, err := c.s.timeseriesOf(ctx, db, coll); err != nil {
		return agg.CollStats{}, err
	} else if o != nil {
		// A time series collection: its buckets' figures with the
		// timeseries section (create_timeseries.go).
		buckets := timeseries.BucketsName(coll)
		st, err := c.next.Stats(ctx, db, buckets)
		if err != nil {
			return st, err
		}
		st.Timeseries, err = c.s.timeseriesStats(db, buckets)
		return st, err
	}
	if err := c.refuse(ctx, db, coll); err != nil {
		return agg.CollStats{}, err
	}
	return c.next.Stats(ctx, db, coll)
}

// Indexes implements agg.Catalog.
func (c viewCatalog) Indexes(ctx context.Context, db, coll string) ([]agg.IndexInfo, error) {
	if err := c.refuse(ctx, db, coll); err != nil {
		return nil, err
	}
	return c.next.Indexes(ctx, db, coll)
}

// ExplainFind implements agg.Catalog.
func (c viewCatalog) ExplainFind(ctx context.Context, db, coll string, spec agg.FindSpec) (bsoncore.Document, error) {
	return c.next.ExplainFind(ctx, db, coll, spec)
}

// viewFindOptions fails, with mongod's errors (query_request_conversion's
// asAggregateCommandRequest), for a find on a view with an option that an
// aggregation cannot express. It reads the command itself: Lode's own
// find refuses returnKey, min and max with 238, mongod's conversion with
// 168.
func viewFindOptions(cmd bsoncore.Document) error {
	on := func(k string) bool {
		v, err := cmd.LookupErr(k)
		if err != nil {
			return false
		}
		if d, ok := v.DocumentOK(); ok {
			return len(d) > 5
		}
		b, ok := v.BooleanOK()
		return ok && b
	}
	for _, opt := range []string{"min", "max", "returnKey", "showRecordId", "tailable", "noCursorTimeout", "allowPartialResults"} {
		if !on(opt) {
			continue
		}
		if opt == "tailable" {
			return errs.New(errs.InvalidPipelineOperator, "Tailable cursors are not supported in aggregation.")
		}
		return errs.New(errs.InvalidPipelineOperator, "Option %s not supported in aggregation.", opt)
	}
	if sort, ok := cmd.Lookup("sort").DocumentOK(); ok {
		if _, err := sort.LookupErr("$natural"); err == nil {
			return errs.New(errs.InvalidPipelineOperator, "Sort option $natural not supported in aggregation.")
		}
	}
	if on("singleBatch") {
		if n, ok := cmd.Lookup("limit").AsInt64OK(); !ok || n != 1 {
			return errs.New(errs.InvalidPipelineOperator, "Option singleBatch not supported in aggregation.")
		}
	}
	for _, opt := range []string{"readOnce", "allowSpeculativeMajorityRead", "requestResumeToken"} {
		if on(opt) {
			return errs.New(errs.InvalidPipelineOperator, "Option %s not supported in aggregation.", opt)
		}
	}
	return nil
}

// findAsAggregate converts a find command on a view to the aggregate
// command mongod runs for it (its options checked by viewFindOptions).
func findAsAggregate(req *Request, f findCmd) (bsoncore.Document, error) {
	spec := f.spec
	stages := findStages(spec.Filter, spec.Sort, spec.Projection, spec.Skip, spec.Limit)
	ab := bsoncore.NewArrayBuilder()
	for _, st := range stages {
		ab.AppendDocument(st)
	}
	cur := bsoncore.NewDocumentBuilder()
	if f.hasBatch {
		if f.singleBatch && f.batchSize == 1 {
			cur.AppendInt64("batchSize", 2) // mongod's workaround: no cursor left open
		} else {
			cur.AppendInt64("batchSize", f.batchSize)
		}
	}
	b := bsoncore.NewDocumentBuilder().
		AppendString("aggregate", f.coll).
		AppendArray("pipeline", ab.Build()).
		AppendDocument("cursor", cur.Build())
	if v, err := req.Cmd.LookupErr("allowDiskUse"); err == nil {
		b.AppendValue("allowDiskUse", v)
	}
	if len(spec.Let) > 0 {
		b.AppendDocument("let", spec.Let)
	}
	if spec.Hint.Type != 0 {
		b.AppendValue("hint", spec.Hint)
	}
	copyFields(b, req.Cmd, "collation", "maxTimeMS", "comment", "readConcern", "lsid", "txnNumber", "autocommit", "startTransaction", "$db")
	return b.Build(), nil
}

// countAsAggregate converts a count on a view to its aggregate: the
// matching documents after skip and limit, counted.
func countAsAggregate(req *Request, c countCmd) bsoncore.Document {
	stages := findStages(c.filter, nil, nil, c.skip, c.limit)
	stages = append(stages, bsoncore.NewDocumentBuilder().AppendString("$count", "count").Build())
	ab := bsoncore.NewArrayBuilder()
	for _, st := range stages {
		ab.AppendDocument(st)
	}
	b := bsoncore.NewDocumentBuilder().
		AppendString("aggregate", c.coll).
		AppendArray("pipeline", ab.Build()).
		AppendDocument("cursor", bsoncore.NewDocumentBuilder().Build())
	copyFields(b, req.Cmd, "collation", "maxTimeMS", "comment", "readConcern", "lsid", "txnNumber", "autocommit", "startTransaction", "$db")
	return b.Build()
}

// distinctAsAggregate converts a distinct on a view to its aggregate:
// the matching documents, the key's array values unwound, the distinct
// values gathered in one document.
func distinctAsAggregate(req *Request, d distinctCmd) bsoncore.Document {
	stages := findStages(d.filter, nil, nil, 0, 0)
	// One $unwind per prefix of the key, so that arrays anywhere on the
	// path are flattened, as mongod's ParsedDistinct::asAggregationCommand.
	parts := strings.Split(d.key, ".")
	for i := range parts {
		stages = append(stages, bsoncore.NewDocumentBuilder().AppendDocument("$unwind", bsoncore.NewDocumentBuilder().
			AppendString("path", "$"+strings.Join(parts[:i+1], ".")).AppendBoolean("preserveNullAndEmptyArrays", true).Build()).Build())
	}
	stages = append(stages,
		bsoncore.NewDocumentBuilder().AppendDocument("$group", bsoncore.NewDocumentBuilder().
			AppendNull("_id").
			AppendDocument("distinct", bsoncore.NewDocumentBuilder().AppendString("$addToSet", "$"+d.key).Build()).Build()).Build())
	ab := bsoncore.NewArrayBuilder()
	for _, st := range stages {
		ab.AppendDocument(st)
	}
	b := bsoncore.NewDocumentBuilder().
		AppendString("aggregate", d.coll).
		AppendArray("pipeline", ab.Build()).
		AppendDocument("cursor", bsoncore.NewDocumentBuilder().Build())
	copyFields(b, req.Cmd, "collation", "maxTimeMS", "comment", "readConcern", "lsid", "txnNumber", "autocommit", "startTransaction", "$db")
	return b.Build()
}

// copyFields appends the fields of cmd named in keys, when present.
func copyFields(b *bsoncore.DocumentBuilder, cmd bsoncore.Document, keys ...string) {
	for _, k := range keys {
		if v, err := cmd.LookupErr(k); err == nil {
			b.AppendValue(k, v)
		}
	}
}

// runViewAggregate runs cmd, an aggregate on a view, for the find, count
// or distinct req, and returns the aggregate's reply.
func runViewAggregate(ctx context.Context, s *Server, req *Request, cmd bsoncore.Document) (bsoncore.Document, error) {
	sub := &Request{Name: "aggregate", DB: req.DB, Cmd: cmd, conn: req.conn}
	return cmdAggregate(ctx, s, sub)
}

// drainFirstBatch returns the documents of an aggregate's reply whose
// whole result fits the first batch (count and distinct).
func drainFirstBatch(reply bsoncore.Document) []bsoncore.Document {
	cur, ok := reply.Lookup("cursor").DocumentOK()
	if !ok {
		return nil
	}
	return docArray(cur.Lookup("firstBatch"))
}

// explainOnView explains a command on a view as the aggregate its
// explainer rewrites it to (find, count, distinct); writes on a view
// fail as they do when run.
func explainOnView(ctx context.Context, s *Server, req *Request, name string, ex *explainer, inner bsoncore.Document, verbosity string) (bsoncore.Document, error) {
	if ex.onView == nil {
		coll, _ := inner.Index(0).Value().StringValueOK()
		return nil, viewWriteErr(req.DB, coll)
	}
	cmd, err := ex.onView(s, &Request{Name: name, DB: req.DB, Cmd: inner, conn: req.conn})
	if err != nil {
		return nil, err
	}
	return explainAggregate(ctx, s, req, cmd, verbosity)
}

// findOnView is find's aggregate on a view, for its explainer.
func findOnView(s *Server, sub *Request) (bsoncore.Document, error) {
	if err := viewFindOptions(sub.Cmd); err != nil {
		return nil, err
	}
	f, err := parseFind(sub, s.eng.Params().AllowDiskUseByDefault.Load())
	if err != nil {
		return nil, err
	}
	return findAsAggregate(sub, f)
}

// countOnView is count's aggregate on a view, for its explainer.
func countOnView(_ *Server, sub *Request) (bsoncore.Document, error) {
	c, err := parseCount(sub)
	if err != nil {
		return nil, err
	}
	return countAsAggregate(sub, c), nil
}

// distinctOnView is distinct's aggregate on a view, for its explainer.
func distinctOnView(_ *Server, sub *Request) (bsoncore.Document, error) {
	d, err := parseDistinct(sub)
	if err != nil {
		return nil, err
	}
	return distinctAsAggregate(sub, d), nil
}

// viewTargetErr is the error of a $out or $merge whose target is a view
// as mongod reports it, from the executor of the aggregate on ns; other
// errors are returned as they are.
func viewTargetErr(err error, writes bool, ns string) error {
	if e := errs.As(err); writes && e != nil && e.Code == errs.CommandNotSupportedOnView {
		return errs.New(e.Code, "Executor error during aggregate command on namespace: %s :: caused by :: %s", ns, e.Msg)
	}
	return err
}
