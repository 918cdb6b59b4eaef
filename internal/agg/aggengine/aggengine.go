// Package aggengine adapts *engine.Engine to agg.Catalog, so that package
// agg does not import the engine (which may itself use agg for
// pipeline-style updates).
package aggengine

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// Catalog implements agg.Catalog on an engine.
type Catalog struct {
	E *engine.Engine
	// Explain, when set, renders the queryPlanner section of a pushed-down
	// query (the hook for the planner's explain). Nil renders a minimal
	// one in package agg.
	Explain func(ctx context.Context, db, coll string, spec engine.FindSpec) (bsoncore.Document, error)
	// Ops, when set, lists the server's operations for $currentOp (the
	// engine knows nothing of connections and commands). Nil lists none.
	Ops func(ctx context.Context, opts agg.CurrentOpOptions) ([]bsoncore.Document, error)
	// QueryStatsFn, when set, lists the server's query statistics for
	// $queryStats. Nil lists none.
	QueryStatsFn func(ctx context.Context) ([]bsoncore.Document, error)
	// Sessions, when set, lists the server's session cache for
	// $listLocalSessions. Nil lists none.
	Sessions func(ctx context.Context, allUsers bool, uids [][32]byte) ([]bsoncore.Document, error)
	// ChangeStreams, when set, opens change streams ($changeStream); the
	// server keeps the reader for awaitData and resume tokens.
	ChangeStreams func(ctx context.Context, db, coll string, spec bsoncore.Value) (agg.Iterator, error)
}

// OpenChangeStream implements agg.ChangeStreamOpener through the
// ChangeStreams hook.
func (c *Catalog) OpenChangeStream(ctx context.Context, db, coll string, spec bsoncore.Value) (agg.Iterator, error) {
	if c.ChangeStreams == nil {
		return nil, errs.New(errs.IllegalOperation, "$changeStream is not supported here")
	}
	return c.ChangeStreams(ctx, db, coll, spec)
}

// New returns the catalog of e.
func New(e *engine.Engine) *Catalog { return &Catalog{E: e} }

var (
	_ agg.Catalog        = (*Catalog)(nil)
	_ agg.OpLister       = (*Catalog)(nil)
	_ agg.QueryExplainer = (*Catalog)(nil)
)

var _ agg.LocalSessionLister = (*Catalog)(nil)

// LocalSessions implements agg.LocalSessionLister through the Sessions
// hook.
func (c *Catalog) LocalSessions(ctx context.Context, allUsers bool, uids [][32]byte) ([]bsoncore.Document, error) {
	if c.Sessions == nil {
		return nil, nil
	}
	return c.Sessions(ctx, allUsers, uids)
}

// QueryStats implements agg.QueryStatsLister through the QueryStats hook.
func (c *Catalog) QueryStats(ctx context.Context) ([]bsoncore.Document, error) {
	if c.QueryStatsFn == nil {
		return nil, nil
	}
	return c.QueryStatsFn(ctx)
}

// CurrentOps implements agg.OpLister through the Ops hook.
func (c *Catalog) CurrentOps(ctx context.Context, opts agg.CurrentOpOptions) ([]bsoncore.Document, error) {
	if c.Ops == nil {
		return nil, nil
	}
	return c.Ops(ctx, opts)
}

func findSpec(s agg.FindSpec) engine.FindSpec {
	return engine.FindSpec{
		Filter: s.Filter, Sort: s.Sort, Projection: s.Projection,
		Skip: s.Skip, Limit: s.Limit, Hint: s.Hint, AllowDiskUse: s.AllowDiskUse,
		Collation:      s.Collation,
		TextScoreField: textScoreField(s),
	}
}

// textScoreField names the field that carries the text score through a
// pipeline whose first $match has $text (query.HiddenTextScore).
func textScoreField(s agg.FindSpec) string {
	if s.TextScore {
		return query.HiddenTextScore
	}
	return ""
}

// Find implements agg.Catalog.
func (c *Catalog) Find(ctx context.Context, db, coll string, spec agg.FindSpec) (agg.Iterator, error) {
	return c.E.Find(ctx, db, coll, findSpec(spec))
}

// Count implements agg.Catalog.
func (c *Catalog) Count(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value) (int64, error) {
	return c.E.Count(ctx, db, coll, filter, skip, limit, hint)
}

// Insert implements agg.Catalog.
func (c *Catalog) Insert(ctx context.Context, db, coll string, docs []bsoncore.Document) error {
	if err := engine.ValidateNamespace(db, coll); err != nil {
		return err
	}
	res, err := c.E.Insert(ctx, db, coll, docs, engine.WriteOptions{Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// Update implements agg.Catalog.
func (c *Catalog) Update(ctx context.Context, db, coll string, filter, update bsoncore.Document) error {
	res, err := c.E.Update(ctx, db, coll, []engine.UpdateSpec{{
		Filter: filter,
		Update: bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: update},
	}}, engine.WriteOptions{Ordered: true})
	if err != nil {
		return err
	}
	if len(res.WriteErrors) > 0 {
		return res.WriteErrors[0].Err
	}
	return nil
}

// CreateCollection implements agg.Catalog.
func (c *Catalog) CreateCollection(_ context.Context, db, coll string) error {
	err := c.E.CreateCollection(db, coll, engine.CreateOptions{})
	if errs.Is(err, errs.NamespaceExists) {
		return nil
	}
	return err
}

// DropCollection implements agg.Catalog.
func (c *Catalog) DropCollection(_ context.Context, db, coll string) error {
	err := c.E.DropCollection(db, coll)
	if errs.Is(err, errs.NamespaceNotFound) {
		return nil
	}
	return err
}

// PrepareOut implements agg.Catalog.
func (c *Catalog) PrepareOut(_ context.Context, db, target, tmp string) error {
	if err := engine.ValidateNamespace(db, tmp); err != nil {
		return err
	}
	var opts engine.CreateOptions
	colls, err := c.E.ListCollections(db)
	if err != nil {
		return fmt.Errorf("$out: list collections of %s: %w", db, err)
	}
	exists := false
	for _, ci := range colls {
		if ci.Name != target {
			continue
		}
		exists = true
		if v, err := ci.Options.LookupErr("capped"); err == nil && v.Type == bsoncore.TypeBoolean && v.Boolean() {
			return errs.New(errs.Location17152, "namespace '%s.%s' is capped so it can't be used for $out", db, target)
		}
		if len(ci.Options) > 5 {
			opts.Raw = ci.Options
		}
	}
	if err := c.E.CreateCollection(db, tmp, opts); err != nil {
		return fmt.Errorf("$out: create %s.%s: %w", db, tmp, err)
	}
	if !exists {
		return nil
	}
	ix, err := c.E.ListIndexes(db, target)
	if err != nil {
		return fmt.Errorf("$out: list indexes of %s.%s: %w", db, target, err)
	}
	for _, i := range ix {
		if i.Name == "_id_" {
			continue
		}
		spec := i.IndexSpec
		if spec.Collation == nil {
			// A simple index stays simple: nil would inherit the new
			// collection's default collation (and a text or 2d index
			// would be refused under it).
			spec.Collation = bsoncore.NewDocumentBuilder().AppendString("locale", "simple").Build()
		}
		if _, err := c.E.CreateIndex(db, tmp, spec); err != nil {
			return fmt.Errorf("$out: copy index %s: %w", i.Name, err)
		}
	}
	return nil
}

// RenameCollection implements agg.Catalog.
func (c *Catalog) RenameCollection(_ context.Context, fromDB, fromColl, toDB, toColl string, dropTarget bool) error {
	return c.E.RenameCollection(fromDB, fromColl, toDB, toColl, dropTarget)
}

// Stats implements agg.Catalog.
func (c *Catalog) Stats(_ context.Context, db, coll string) (agg.CollStats, error) {
	st, err := c.E.CollectionStats(db, coll)
	if err != nil {
		return agg.CollStats{}, fmt.Errorf("collection stats of %s.%s: %w", db, coll, err)
	}
	return agg.CollStats{
		Count: st.Count, Size: st.Size, StorageSize: st.StorageSize,
		TotalIndexSize: st.TotalIndexSize, IndexSizes: st.IndexSizes,
		NIndexes: st.NIndexes, Capped: st.Capped, Max: st.Max, MaxSize: st.MaxSize,
	}, nil
}

// Indexes implements agg.Catalog.
func (c *Catalog) Indexes(_ context.Context, db, coll string) ([]agg.IndexInfo, error) {
	ix, err := c.E.ListIndexes(db, coll)
	if err != nil {
		return nil, err
	}
	out := make([]agg.IndexInfo, 0, len(ix))
	for _, i := range ix {
		b := bsoncore.NewDocumentBuilder().AppendInt32("v", 2).AppendDocument("key", i.Key).AppendString("name", i.Name)
		if i.Unique && i.Name != "_id_" {
			b.AppendBoolean("unique", true)
		}
		if i.Sparse {
			b.AppendBoolean("sparse", true)
		}
		if i.PartialFilterExpression != nil {
			b.AppendDocument("partialFilterExpression", i.PartialFilterExpression)
		}
		if i.ExpireAfterSeconds != nil {
			b.AppendInt64("expireAfterSeconds", *i.ExpireAfterSeconds)
		}
		if i.Collation != nil {
			// Last, as mongod's listIndexes shows it.
			b.AppendDocument("collation", i.Collation)
		}
		out = append(out, agg.IndexInfo{Name: i.Name, Key: i.Key, Spec: b.Build(), Ops: i.Accesses, Since: i.AccessesSince})
	}
	return out, nil
}

// ExplainFind implements agg.Catalog.
func (c *Catalog) ExplainFind(ctx context.Context, db, coll string, spec agg.FindSpec) (bsoncore.Document, error) {
	if c.Explain == nil {
		return nil, nil
	}
	return c.Explain(ctx, db, coll, findSpec(spec))
}

// FindPartitions implements agg.Partitioner.
func (c *Catalog) FindPartitions(ctx context.Context, db, coll string, spec agg.FindSpec, n int) ([]agg.Iterator, error) {
	parts, err := c.E.FindPartitions(ctx, db, coll, findSpec(spec), n)
	if err != nil || parts == nil {
		return nil, err
	}
	out := make([]agg.Iterator, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

// ExplainQuery implements agg.QueryExplainer through the engine's explain.
func (c *Catalog) ExplainQuery(ctx context.Context, db, coll string, q agg.QueryExplain) (agg.ExplainedQuery, error) {
	spec := engine.ExplainSpec{Kind: engine.ExplainFindOp, Find: findSpec(q.Spec), Verbosity: q.Verbosity}
	if q.Count {
		spec.Kind = engine.ExplainCountOp
	}
	eq, err := c.E.ExplainQuery(ctx, db, coll, spec)
	if err != nil {
		return nil, err
	}
	return explainedQuery{eq}, nil
}

// explainedQuery adapts *engine.ExplainedQuery to agg.ExplainedQuery.
type explainedQuery struct{ *engine.ExplainedQuery }

func (q explainedQuery) Totals() agg.QueryTotals {
	t := q.ExplainedQuery.Totals()
	return agg.QueryTotals{KeysExamined: t.KeysExamined, DocsExamined: t.DocsExamined, CollScan: t.CollScan, Indexes: t.Indexes}
}
