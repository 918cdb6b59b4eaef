package server

import (
	"bytes"
	"context"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// Views, as mongod 7.0 has them: a view is a document
// {_id: "<db>.<view>", viewOn: "<source>", pipeline: [...]} of the
// ordinary collection <db>.system.views, so the view catalog is durable,
// replicated through the oplog (inserts, updates and deletes on
// system.views, as mongod logs them) and dropped with its database. The
// engine's catalog holds the definitions parsed and keeps them current
// (engine/views.go); this file resolves and checks them. A read on a view
// runs the view's pipeline, resolved through the views it is defined on,
// followed by the read as aggregation stages.

const (
	systemViews  = engine.SystemViews
	maxViewDepth = 20 // ViewGraph::kMaxViewDepth
)

// lookupView returns the view db.coll, or nil when db.coll is not a view.
// The definition comes from the engine's catalog, which holds every
// database's system.views parsed (engine/views.go).
func (s *Server) lookupView(ctx context.Context, db, coll string) (*engine.View, error) {
	if db == "" || coll == "" {
		return nil, nil
	}
	return s.eng.View(db, coll)
}

// allViews returns the views of db by name, in a map the caller may
// change.
func (s *Server) allViews(ctx context.Context, db string) (map[string]*engine.View, error) {
	views, err := s.eng.Views(db)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*engine.View, len(views)+1)
	for k, v := range views {
		out[k] = v
	}
	return out, nil
}

// resolveView resolves db.coll through the views it is defined on, as
// mongod's view_catalog_helpers::resolveView: the collection reached and
// the concatenated pipelines, innermost view first. isView is false when
// db.coll is not a view.
func (s *Server) resolveView(ctx context.Context, db, coll string) (base string, pipeline []bsoncore.Document, isView bool, err error) {
	cur := coll
	for depth := 0; depth < maxViewDepth; depth++ {
		v, err := s.lookupView(ctx, db, cur)
		if err != nil {
			return "", nil, false, err
		}
		if v == nil {
			return cur, pipeline, isView, nil
		}
		isView = true
		cur = v.ViewOn
		pipeline = append(append([]bsoncore.Document(nil), v.Pipeline...), pipeline...)
	}
	return "", nil, false, errs.New(errs.ViewDepthLimitExceeded,
		"View depth too deep or view cycle detected; maximum depth is %d", maxViewDepth)
}

// viewWriteErr is mongod's error for a write or an index or catalog
// operation on a view.
func viewWriteErr(db, coll string) error {
	return errs.New(errs.CommandNotSupportedOnView, "Namespace %s.%s is a view, not a collection", db, coll)
}

// refuseView fails with CommandNotSupportedOnView when db.coll is a view.
func (s *Server) refuseView(ctx context.Context, db, coll string) error {
	v, err := s.lookupView(ctx, db, coll)
	if err != nil {
		return err
	}
	if v != nil {
		return viewWriteErr(db, coll)
	}
	return nil
}

// validateViewPipeline checks a view's pipeline as mongod's
// view_catalog_helpers::validatePipeline: it must parse, and may not
// write, open a change stream or be independent of a collection.
func (s *Server) validateViewPipeline(db, name, viewOn string, pipeline []bsoncore.Document) error {
	wrap := func(err error) error {
		var code errs.Code = errs.InternalError
		msg := err.Error()
		if e := errs.As(err); e != nil {
			code, msg = e.Code, e.Msg
		}
		return errs.New(code, "Invalid pipeline for view %s.%s :: caused by :: %s", db, name, msg)
	}
	// LiteParsedPipeline's errors (a malformed stage, an unknown stage
	// name) come unwrapped and first; then those of parsing the stages;
	// then the view checks of the parsed pipeline.
	// The lite parse's own checks, as a $lookup from a namespace of
	// another database, refuse the pipeline unwrapped.
	if _, err := agg.PipelineAccess(agg.Namespace{DB: db, Coll: viewOn}, pipeline); err != nil {
		return err
	}
	pc := &agg.ParseContext{Expr: expr.NewParseContext(), DB: db, Coll: viewOn, Params: s.eng.Params(), TempDir: s.eng.TempDir()}
	_, perr := agg.Parse(pipeline, pc)
	if e := errs.As(perr); e != nil && (e.Code == errs.InvalidAggregationStage || e.Code == errs.Location40323 || e.Code == errs.InvalidBSON) {
		return perr
	}
	names := make([]string, len(pipeline))
	for i, d := range pipeline {
		if elems, err := d.Elements(); err == nil && len(elems) == 1 {
			names[i] = elems[0].Key()
		}
	}
	if len(names) > 0 && names[0] == "$changeStream" {
		return wrap(errs.New(errs.OptionNotSupportedOnView, "$changeStream cannot be used in a view definition"))
	}
	if perr != nil {
		return wrap(perr)
	}
	for i, st := range names {
		if t, _ := agg.StageTraits(st); t.Writes {
			return wrap(errs.New(errs.OptionNotSupportedOnView,
				"The aggregation stage %s in location %d of the pipeline cannot be used in the view definition of %s.%s because it writes to disk",
				st, i, db, name))
		}
	}
	for _, st := range names {
		if t, _ := agg.StageTraits(st); !t.InView {
			return wrap(errs.New(errs.InvalidNamespace, "'%s' cannot be used in a view definition", st))
		}
	}
	return nil
}

// involvedNamespaces lists the collections or views a view reads: its
// viewOn and the namespaces its stages declare reading ($lookup's,
// $graphLookup's and $unionWith's), at any depth.
func involvedNamespaces(viewOn string, pipeline []bsoncore.Document) []string {
	out := []string{viewOn}
	_ = agg.WalkPipeline(agg.Namespace{Coll: viewOn}, pipeline, func(v agg.StageVisit) error {
		for _, src := range v.Sources {
			// A {db, coll} from names an internal namespace of another
			// database, never a view of this one.
			if src.Foreign && src.Named {
				out = append(out, src.From.Coll)
			}
		}
		return nil
	})
	return out
}

func docArray(v bsoncore.Value) []bsoncore.Document {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	var out []bsoncore.Document
	for _, x := range vals {
		if d, ok := x.DocumentOK(); ok {
			out = append(out, d)
		}
	}
	return out
}

// checkViewGraph checks that defining db.name as (viewOn, pipeline) makes
// no cycle and no chain of views deeper than 20, as mongod's ViewGraph.
func (s *Server) checkViewGraph(ctx context.Context, db, name, viewOn string, pipeline []bsoncore.Document) error {
	views, err := s.allViews(ctx, db)
	if err != nil {
		return err
	}
	views[name] = &engine.View{Name: name, ViewOn: viewOn, Pipeline: pipeline}
	children := map[string][]string{}
	for n, v := range views {
		children[n] = involvedNamespaces(v.ViewOn, v.Pipeline)
	}
	// Cycles through the new view, reported as mongod does.
	var path []string
	var cycle error
	var visit func(n string, depth int) bool
	seen := map[string]bool{}
	visit = func(n string, depth int) bool {
		path = append(path, n)
		if depth > 0 && n == name {
			var sb strings.Builder
			sb.WriteString("View cycle detected: " + db + "." + path[len(path)-1])
			for i := len(path) - 1; i >= 0; i-- {
				sb.WriteString(" => " + db + "." + path[i])
			}
			cycle = errs.New(errs.GraphContainsCycle, "%s", sb.String())
			return true
		}
		if depth > maxViewDepth {
			cycle = errs.New(errs.ViewDepthLimitExceeded, "View depth limit exceeded; maximum depth is %d", maxViewDepth)
			return true
		}
		if seen[n] {
			path = path[:len(path)-1]
			return false
		}
		for _, c := range children[n] {
			if visit(c, depth+1) {
				return true
			}
		}
		seen[n] = true
		path = path[:len(path)-1]
		return false
	}
	if visit(name, 0) {
		return cycle
	}
	// Height below (a collection counts 1) and above the new view.
	var down func(n string) int
	memo := map[string]int{}
	down = func(n string) int {
		if h, ok := memo[n]; ok {
			return h
		}
		h := 1
		if _, isView := views[n]; isView {
			for _, c := range children[n] {
				if x := down(c) + 1; x > h {
					h = x
				}
			}
		}
		memo[n] = h
		return h
	}
	var up func(n string, depth int) int
	up = func(n string, depth int) int {
		if depth > maxViewDepth {
			return depth
		}
		h := 1
		for p, cs := range children {
			for _, c := range cs {
				if c == n {
					if x := up(p, depth+1) + 1; x > h {
						h = x
					}
					break
				}
			}
		}
		return h
	}
	if diameter := up(name, 0) + down(name) - 1 - 1; diameter > maxViewDepth {
		return errs.New(errs.ViewDepthLimitExceeded, "View depth limit exceeded; maximum depth is %d", maxViewDepth)
	}
	return nil
}

// viewDoc is the system.views document of db.name.
func viewDoc(db, name, viewOn string, pipeline []bsoncore.Document, collation bsoncore.Document) bsoncore.Document {
	ab := bsoncore.NewArrayBuilder()
	for _, d := range pipeline {
		ab.AppendDocument(d)
	}
	b := bsoncore.NewDocumentBuilder().
		AppendString("_id", db+"."+name).
		AppendString("viewOn", viewOn).
		AppendArray("pipeline", ab.Build())
	if collation != nil {
		b.AppendDocument("collation", collation)
	}
	return b.Build()
}

// checkViewOnCollation refuses, as mongod does (OptionNotSupportedOnView),
// a view defined on a view whose default collation is not its own.
func (s *Server) checkViewOnCollation(ctx context.Context, db, name, viewOn string, collation bsoncore.Document) error {
	under, err := s.lookupView(ctx, db, viewOn)
	if err != nil || under == nil {
		return err
	}
	if !bytes.Equal(under.Collation, collation) {
		return errs.New(errs.OptionNotSupportedOnView, "View %s.%s has a different default collation than the view %s.%s it is defined on", db, name, db, viewOn)
	}
	return nil
}

// pipelineString renders a pipeline as mongod's messages show a BSON array.
func pipelineString(pipeline []bsoncore.Document) string {
	ab := bsoncore.NewArrayBuilder()
	for _, d := range pipeline {
		ab.AppendDocument(d)
	}
	return bsonutil.FormatValue(bsoncore.Value{Type: bsoncore.TypeArray, Data: ab.Build()}, bsonutil.Style{GoNonFinite: true, JSONCode: true})
}

// createView creates db.name on viewOn, as mongod's create with viewOn.
func (s *Server) createView(ctx context.Context, db, name, viewOn string, pipeline []bsoncore.Document, collation bsoncore.Document) error {
	if engine.TxnFrom(ctx) != nil {
		return errs.New(errs.OperationNotSupportedInTransaction, "Cannot create a view in a multi-document transaction.")
	}
	if err := engine.ValidateNamespace(db, name); err != nil {
		return err
	}
	if err := engine.ValidateNamespace(db, viewOn); err != nil {
		return err
	}
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	if err := s.eng.CollectionExistsError(db, name); err != nil {
		return err
	}
	if old, err := s.lookupView(ctx, db, name); err != nil {
		return err
	} else if old != nil {
		if old.ViewOn != viewOn {
			return errs.New(errs.NamespaceExists, "namespace %s.%s already exists, but is a view on %s.%s rather than %s.%s",
				db, name, db, old.ViewOn, db, viewOn)
		}
		if pipelineString(old.Pipeline) != pipelineString(pipeline) {
			return errs.New(errs.NamespaceExists, "namespace %s.%s already exists, but with pipeline %s rather than %s",
				db, name, pipelineString(old.Pipeline), pipelineString(pipeline))
		}
		return nil
	}
	if err := s.validateViewPipeline(db, name, viewOn, pipeline); err != nil {
		return err
	}
	if err := s.checkViewGraph(ctx, db, name, viewOn, pipeline); err != nil {
		return err
	}
	if err := s.checkViewOnCollation(ctx, db, name, viewOn, collation); err != nil {
		return err
	}
	if err := s.eng.CreateCollectionCtx(ctx, db, systemViews, engine.CreateOptions{}); err != nil && !errs.Is(err, errs.NamespaceExists) {
		return err
	}
	res, err := s.eng.Insert(ctx, db, systemViews, []bsoncore.Document{viewDoc(db, name, viewOn, pipeline, collation)}, engine.WriteOptions{Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// modifyView redefines the view db.name (collMod with viewOn/pipeline).
func (s *Server) modifyView(ctx context.Context, db, name string, old *engine.View, viewOn *string, pipeline []bsoncore.Document, hasPipeline bool) error {
	on := old.ViewOn
	if viewOn != nil {
		on = *viewOn
		if on == "" {
			return errs.New(errs.BadValue, "'viewOn' cannot be empty")
		}
	}
	pipe := old.Pipeline
	if hasPipeline {
		pipe = pipeline
	}
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	if err := s.validateViewPipeline(db, name, on, pipe); err != nil {
		return err
	}
	if err := s.checkViewGraph(ctx, db, name, on, pipe); err != nil {
		return err
	}
	if err := s.checkViewOnCollation(ctx, db, name, on, old.Collation); err != nil {
		return err
	}
	filter := bsoncore.NewDocumentBuilder().AppendString("_id", db+"."+name).Build()
	doc := viewDoc(db, name, on, pipe, old.Collation)
	res, err := s.eng.Update(ctx, db, systemViews, []engine.UpdateSpec{{Filter: filter,
		Update: bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc}}}, engine.WriteOptions{Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// dropView removes the view db.name from system.views.
func (s *Server) dropView(ctx context.Context, db, name string) error {
	s.viewMu.Lock()
	defer s.viewMu.Unlock()
	filter := bsoncore.NewDocumentBuilder().AppendString("_id", db+"."+name).Build()
	res, err := s.eng.Delete(ctx, db, systemViews, []engine.DeleteSpec{{Filter: filter, Limit: 1}}, engine.WriteOptions{Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// viewCollectionInfos are the listCollections entries of db's views, by
// name.
func (s *Server) viewCollectionInfos(ctx context.Context, db string) ([]*engine.View, error) {
	views, err := s.eng.Views(db)
	if err != nil {
		return nil, err
	}
	out := make([]*engine.View, 0, len(views))
	for _, v := range views {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// viewBatchReply is the reply of an insert, update or delete on a view
// (nil when db.coll is not a view): as mongod, each statement tried fails
// with CommandNotSupportedOnView, the first only when ordered.
func (s *Server) viewBatchReply(ctx context.Context, db string, b writeBatch, extra ...string) (bsoncore.Document, error) {
	v, err := s.lookupView(ctx, db, b.coll)
	if err != nil || v == nil {
		return nil, err
	}
	e := errs.As(viewWriteErr(db, b.coll))
	n := len(b.stmts)
	if b.opts.Ordered || n == 0 {
		n = 1
	}
	wes := make([]engine.WriteError, n)
	for i := range wes {
		wes[i] = engine.WriteError{Index: i, Err: e}
	}
	out := bsoncore.NewDocumentBuilder().AppendInt32("n", 0)
	for _, k := range extra {
		out.AppendInt32(k, 0)
	}
	appendWriteErrors(out, wes)
	return out.Build(), nil
}
