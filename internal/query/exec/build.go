package exec

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// Env is what stages read: a storage view, the collection and the query's
// filter.
type Env struct {
	Reader storage.Reader
	CollID uint64
	// Records, when set, is what COLLSCAN reads instead of the
	// collection's record store (the oplog's entries).
	Records storage.RecordSource
	// Clustered: the collection is clustered (storage's clustered
	// layout): COLLSCAN reads it through storage.ClusteredRecords, FETCH
	// reaches records by the cluster key of their index entries.
	Clustered bool
	Filter    *query.Filter
	FilterDoc bsoncore.Document // the parsed filter as explain shows it
	// Timing measures executionTimeMillisEstimate per stage (explain).
	Timing bool
	// EmptyRanges, when set, lets forward index scans skip ranges known to
	// hold no entries. Only for plans run under the collection's writer
	// lock.
	EmptyRanges EmptyRanges
	// FetchBatch, when above 1, lets FETCH read up to that many records
	// ahead of its consumer in record-id order (see Fetch). Explain leaves
	// it off so that every stage's figures are those of mongod.
	FetchBatch int

	// fetchWant is the most results the plan's consumer takes (0: no
	// bound), which caps FETCH's read-ahead.
	fetchWant int64
}

// Options are the parts of a query the executor adds above a solution.
type Options struct {
	Sort          *query.Sort
	SortDoc       bsoncore.Document
	Skip, Limit   int64
	Projection    *query.Projection
	ProjectionDoc bsoncore.Document
	// Count builds a COUNT (or COUNT_SCAN) plan instead of returning
	// documents; Skip and Limit then bound the count.
	Count bool
	// Keys returns index keys without FETCH when the solution is covered
	// (distinct).
	Keys     bool
	SortOpts SortOptions
}

// Build turns a solution into a stage tree.
func Build(sol *plan.Solution, env Env, o Options) (Stage, error) {
	if o.Count && sol.Covered && sol.Root.Stage == plan.StageIxScan && CanCountScan(sol.Root.Bounds) {
		return NewCount(NewCountScan(env.Reader, sol.Root.Index, sol.Root.Bounds, env.Timing), o.Skip, o.Limit, env.Timing), nil
	}
	if o.Limit > 0 && !(sol.BlockingSort && o.Sort != nil) {
		env.fetchWant = o.Skip + o.Limit
	}
	root, err := buildNode(sol.Root, env)
	if err != nil {
		return nil, err
	}
	if o.Count {
		return NewCount(root, o.Skip, o.Limit, env.Timing), nil
	}
	if o.Keys {
		if sol.Root.Stage == plan.StageDistinctScan {
			// As mongod plans distinct: PROJECTION_COVERED > DISTINCT_SCAN.
			// Members keep their key, which distinct decodes.
			f := sol.Index.Fields[sol.Root.DistinctField].Path
			spec := bsoncore.NewDocumentBuilder().AppendInt32("_id", 0).AppendInt32(f, 1).Build()
			root = NewProjectionCovered(root, sol.Index, []string{f}, spec, env.Timing)
		}
		return root, nil
	}
	limit := o.Limit
	if sol.BlockingSort && o.Sort != nil {
		so := o.SortOpts
		if o.Limit > 0 {
			// A top-k sort returns at most skip+limit results, so no LIMIT
			// stage goes above it (as mongod plans it: SKIP > SORT).
			so.Limit = o.Skip + o.Limit
			limit = 0
		}
		root = NewSort(root, o.Sort, o.SortDoc, so, env.Timing)
	}
	if o.Skip > 0 {
		root = NewSkip(root, o.Skip, env.Timing)
	}
	if limit > 0 {
		root = NewLimit(root, limit, env.Timing)
	}
	if sol.CoveredProjection && o.Projection != nil {
		fields, _ := plan.CoverableProjection(o.ProjectionDoc)
		root = NewProjectionCovered(root, sol.Index, fields, o.ProjectionDoc, env.Timing)
	} else if o.Projection != nil {
		root = NewProjection(root, o.Projection, o.ProjectionDoc, env.Timing)
	}
	return root, nil
}

func buildNode(n *plan.Node, env Env) (Stage, error) {
	switch n.Stage {
	case plan.StageEOF:
		return NewEOF(), nil
	case plan.StageCollScan:
		if env.Records != nil {
			return NewSourceScan(env.Reader, env.Records, n.Direction, env.Filter, env.FilterDoc, env.Timing), nil
		}
		if env.Clustered {
			return newClusteredScan(env, n), nil
		}
		return NewCollScan(env.Reader, env.CollID, n.Direction, env.Filter, env.FilterDoc, env.Timing), nil
	case plan.StageIxScan:
		ix := NewIxScan(env.Reader, n.Index, n.Bounds, n.Direction, n.Dedup, env.Timing)
		if n.KeyRange != nil {
			ix.setKeyRange(n.KeyRange)
		}
		ix.SetEmptyRanges(env.EmptyRanges)
		return ix, nil
	case plan.StageDistinctScan:
		return NewDistinctScan(env.Reader, n.Index, n.Bounds, n.DistinctField, env.Timing), nil
	case plan.StageFetch:
		child, err := buildNode(n.Children[0], env)
		if err != nil {
			return nil, err
		}
		var f *query.Filter
		doc := env.FilterDoc
		if n.Filter {
			f = env.Filter
			if len(n.Dropped) > 0 {
				// The residual: the bounds guarantee the rest.
				f, doc = n.Residual, n.ResidualDoc
			}
			if n.BranchFilter != nil {
				f, doc = n.BranchFilter, n.BranchFilterDoc
			}
		}
		fetch := NewFetch(child, env.Reader, env.CollID, f, doc, env.Timing)
		fetch.clustered = env.Clustered // by cluster key (clustered.go)
		fetch.SetBatch(env.FetchBatch, env.fetchWant)
		return fetch, nil
	case plan.StageSortMerge:
		var kids []*IxScan
		var bounds [][]plan.FieldBounds
		prefix := 0
		for _, c := range n.Children {
			kid := NewIxScan(env.Reader, c.Index, c.Bounds, c.Direction, false, env.Timing)
			kid.SetEmptyRanges(env.EmptyRanges)
			kids = append(kids, kid)
			bounds = append(bounds, c.Bounds)
			prefix = c.MergePrefixFields
		}
		rev := len(n.Children) > 0 && n.Children[0].Direction < 0
		return NewSortMerge(kids, bounds, prefix, sortPatternDoc(n.Sort), rev, n.Dedup, env.Timing), nil
	case plan.StageAndSorted:
		var kids []*IxScan
		for _, c := range n.Children {
			kids = append(kids, NewIxScan(env.Reader, c.Index, c.Bounds, c.Direction, false, env.Timing))
		}
		return NewAndSorted(kids, env.Timing), nil
	case plan.StageTextMatch:
		child, err := buildNode(n.Children[0], env)
		if err != nil {
			return nil, err
		}
		return NewTextMatch(child, n.Text, env.Timing), nil
	case plan.StageTextOr:
		var kids []Stage
		for _, c := range n.Children {
			kids = append(kids, NewIxScan(env.Reader, c.Index, c.Bounds, c.Direction, false, env.Timing))
		}
		if n.BranchFilter != nil {
			return NewTextOr(kids, n.Text, env.Reader, env.CollID, n.BranchFilter, n.BranchFilterDoc, env.Timing), nil
		}
		return NewTextOr(kids, n.Text, env.Reader, env.CollID, env.Filter, env.FilterDoc, env.Timing), nil
	case plan.StageGeoNear2DSphere, plan.StageGeoNear2D:
		return NewGeoNear(n, env), nil
	case plan.StageOr:
		var kids []Stage
		for _, c := range n.Children {
			k, err := buildNode(c, env)
			if err != nil {
				return nil, err
			}
			kids = append(kids, k)
		}
		o := NewOr(kids, env.Timing)
		o.scored = n.Scored
		return o, nil
	}
	return nil, fmt.Errorf("exec: unknown plan stage %q", n.Stage)
}

// sortPatternDoc renders a parsed sort as {path: ±1, ...}.
func sortPatternDoc(s *query.Sort) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if s != nil {
		for _, f := range s.Fields {
			if f.Desc {
				b.AppendInt32(f.Path, -1)
			} else {
				b.AppendInt32(f.Path, 1)
			}
		}
	}
	return b.Build()
}
