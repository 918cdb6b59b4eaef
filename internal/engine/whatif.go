package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/indexkey"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// Hypothetical indexes (the index advisor's "what if"). WhatIf plans a
// query over a collection's real indexes plus indexes that do not exist
// (described only: a hypothetical index has no storage), and estimates
// what the plan Lode would choose examines. The planner's trial cannot
// run a scan of an index that has no keys, so every candidate is costed
// instead, on a sample of the collection's documents: their keys for the
// candidate's index (the engine's own key generation) are checked against
// the scan's bounds, sorted in index order and walked as the plan would
// walk them, stopping at the limit when the index provides the order.

// WhatIfSampleMax is the most documents of each stratum (those the query
// matches, and the others) WhatIf estimates on; larger collections are
// read whole but sampled, and the sampled documents weighted.
const WhatIfSampleMax = 20000

// WhatIfQuery is the query WhatIf plans.
type WhatIfQuery struct {
	Filter bsoncore.Document
	// Sort is nil or empty when the query has none.
	Sort bsoncore.Document
	// Limit is 0 for none (findAndModify, updateOne and deleteOne pass 1).
	Limit int64
	// Count marks a count: plans may answer from the index keys alone.
	Count bool
	// Find marks a find, which may prefer a collection scan to an index
	// range holding most of the collection (collscanpref.go).
	Find bool
}

// WhatIfPlan is the estimate of one candidate plan, per execution.
type WhatIfPlan struct {
	// Summary is mongod's planSummary form: "COLLSCAN", "IXSCAN { a: 1 }".
	Summary string
	// Index names the scanned index ("" for a collection scan).
	Index string
	// Hypothetical is set when the plan scans a hypothetical index.
	Hypothetical bool
	// BlockingSort is set when the plan sorts in memory.
	BlockingSort bool
	// KeysExamined, DocsExamined and Returned are estimates.
	KeysExamined, DocsExamined, Returned float64
}

// WhatIfResult is WhatIf's answer.
type WhatIfResult struct {
	// Chosen is the plan Lode would run; Candidates are all plans costed,
	// Chosen among them.
	Chosen     WhatIfPlan
	Candidates []WhatIfPlan
	// Docs is the collection's document count; Sampled how many of them
	// the estimate used.
	Docs    int64
	Sampled int
	// IndexBytes estimates the size of each hypothetical index by name:
	// the sampled key bytes (plus the record id each entry carries)
	// scaled to the collection.
	IndexBytes map[string]int64
}

// hypotheticalIDBase numbers hypothetical indexes above any real id.
const hypotheticalIDBase = math.MaxUint64 - 1<<16

// WhatIf plans q over db.coll's indexes plus hyp (which are not built) and
// estimates the keys and documents examined by the plan it would choose.
func (e *Engine) WhatIf(ctx context.Context, db, coll string, q WhatIfQuery, hyp []IndexSpec) (*WhatIfResult, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	collator, err := e.statementCollator(db, coll, nil)
	if err != nil {
		return nil, err
	}
	if q.Filter == nil {
		q.Filter = emptyDoc
	}
	filterDoc, f, err := parseFilter(ctx, q.Filter, nil, collator)
	if err != nil {
		return nil, fmt.Errorf("whatif: filter: %w", err)
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil, errs.New(errs.NamespaceNotFound, "ns does not exist: %s.%s", db, coll)
	}
	req := planReq{filterDoc: filterDoc, filter: f, covered: q.Count}
	if len(q.Sort) > 5 {
		s, err := query.ParseSort(q.Sort)
		if err != nil {
			return nil, fmt.Errorf("whatif: sort: %w", err)
		}
		if s = s.Collated(f.Collator()); !s.Empty() {
			if _, natural := s.Natural(); !natural {
				req.sort, req.sortDoc = s, q.Sort
			}
		}
	}
	r, release, c := e.snapshotOf(ctx, c)
	defer release()
	w, err := e.sampleColl(ctx, r, c, f)
	if err != nil {
		return nil, err
	}
	pix, err := planIndexes(c, &req)
	if err != nil {
		return nil, err
	}
	res := &WhatIfResult{Docs: w.total, Sampled: len(w.docs), IndexBytes: map[string]int64{}}
	for i, spec := range hyp {
		id := hypotheticalIDBase + uint64(i)
		if spec.Name == "" {
			spec.Name = DefaultIndexName(spec.Key)
		}
		ix, err := newIndex(id, spec)
		if err != nil {
			return nil, fmt.Errorf("whatif: hypothetical index %s: %w", spec.Name, err)
		}
		if ix.Text != nil || ix.HasGeo() {
			return nil, errs.New(errs.BadValue, "whatif: hypothetical index %s: only btree indexes", spec.Name)
		}
		pi, bytes, err := w.describe(ix, f.Collator())
		if err != nil {
			return nil, err
		}
		res.IndexBytes[spec.Name] = bytes
		pix = append(pix, pi)
	}
	sols, err := plan.Plan(plan.Params{
		NS: c.NS(), Filter: f, FilterDoc: filterDoc, Sort: req.sort, SortDoc: req.sortDoc,
		Indexes: pix, TextIndex: textPlanIndex(c), Covered: q.Count,
		MaxScansToExplode: int(e.params.MaxScansToExplode.Load()),
	})
	if err != nil {
		return nil, fmt.Errorf("whatif: plan: %w", err)
	}
	for _, ix := range c.Indexes {
		w.indexes[ix.ID] = ix
	}
	best, bestCost := -1, math.Inf(1)
	for _, s := range sols {
		p, err := w.estimate(s, q)
		if err != nil {
			return nil, err
		}
		p.Hypothetical = s.Index != nil && s.Index.ID >= hypotheticalIDBase
		res.Candidates = append(res.Candidates, p)
		// The trial favours the plan that produces results with the least
		// work; a blocking sort also works once per sorted document.
		cost := p.KeysExamined + p.DocsExamined
		if p.BlockingSort {
			cost += p.Returned
		}
		if cost < bestCost {
			best, bestCost = len(res.Candidates)-1, cost
		}
	}
	res.Chosen = res.Candidates[best]
	if cs, ok := w.collScanPreferred(res.Chosen, sols[best], q, req); ok {
		res.Chosen = cs
	}
	return res, nil
}

// whatIfSample is the sampled collection with per-index key caches.
type whatIfSample struct {
	total   int64
	docs    []bsoncore.Document
	matches []bool
	// weight is how many collection documents each sampled one stands for.
	weight  []float64
	indexes map[uint64]*index
	keys    map[uint64][][][]byte // index id -> per document keys
	gen     indexkey.Generator
}

// whatIfSampleMax is WhatIfSampleMax (tests lower it).
var whatIfSampleMax = WhatIfSampleMax

// sampleColl reads the whole collection and keeps a stratified sample in
// storage order: up to whatIfSampleMax of the documents the filter
// matches and as many of the others, each a uniform reservoir sample
// (fixed seed, so periodic data does not alias as a regular stride
// would), weighted by the size of its stratum. A selective query (one
// image out of millions) thus keeps every document it returns, and the
// keys of the others are estimated.
func (e *Engine) sampleColl(ctx context.Context, r storage.Reader, c *collection, f *query.Filter) (*whatIfSample, error) {
	cur, err := openRecords(r, c)
	if err != nil {
		return nil, fmt.Errorf("whatif: scan %s: %w", c.NS(), err)
	}
	defer cur.Close()
	type kept struct {
		pos   int64
		doc   bsoncore.Document
		match bool
	}
	rng := rand.New(rand.NewPCG(0x10de, 0xad71ce))
	var all int64
	var seen [2]int64
	var res [2][]kept
	for {
		_, doc, ok := cur.Next()
		if !ok {
			break
		}
		if all&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		m := f.Match(doc)
		st := 0
		if m {
			st = 1
		}
		switch n := seen[st]; {
		case len(res[st]) < whatIfSampleMax:
			res[st] = append(res[st], kept{all, append(bsoncore.Document(nil), doc...), m})
		default:
			if j := rng.Int64N(n + 1); j < int64(whatIfSampleMax) {
				res[st][j] = kept{all, append(res[st][j].doc[:0], doc...), m}
			}
		}
		seen[st]++
		all++
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("whatif: scan %s: %w", c.NS(), err)
	}
	merged := append(res[0], res[1]...)
	sort.Slice(merged, func(i, j int) bool { return merged[i].pos < merged[j].pos })
	w := &whatIfSample{total: all, indexes: map[uint64]*index{}, keys: map[uint64][][][]byte{}}
	for _, k := range merged {
		st := 0
		if k.match {
			st = 1
		}
		w.docs = append(w.docs, k.doc)
		w.matches = append(w.matches, k.match)
		w.weight = append(w.weight, float64(seen[st])/float64(len(res[st])))
	}
	return w, nil
}

// keysOf returns (and caches) every sampled document's keys for ix.
func (w *whatIfSample) keysOf(ix *index) ([][][]byte, error) {
	if k, ok := w.keys[ix.ID]; ok {
		return k, nil
	}
	out := make([][][]byte, len(w.docs))
	for i, d := range w.docs {
		keys, _, skip, err := w.gen.Keys(ix, d)
		if err != nil {
			return nil, fmt.Errorf("whatif: keys of %s: %w", ix.Name, err)
		}
		if skip {
			continue
		}
		ks := make([][]byte, len(keys))
		for j, k := range keys {
			ks[j] = append([]byte(nil), k...)
		}
		out[i] = ks
	}
	w.keys[ix.ID] = out
	return out, nil
}

// describe returns a hypothetical index's planner description, multikey
// when some sampled document meets an array on its paths, and its
// estimated size, for a query whose collation is qc.
func (w *whatIfSample) describe(ix *index, qc *collation.Collator) (*plan.Index, int64, error) {
	w.indexes[ix.ID] = ix
	paths := map[string]bool{}
	var size float64
	out := make([][][]byte, len(w.docs))
	for i, d := range w.docs {
		keys, arr, skip, err := w.gen.Keys(ix, d)
		if err != nil {
			return nil, 0, fmt.Errorf("whatif: keys of %s: %w", ix.Name, err)
		}
		for _, p := range arr {
			paths[p] = true
		}
		if skip {
			continue
		}
		ks := make([][]byte, len(keys))
		for j, k := range keys {
			ks[j] = append([]byte(nil), k...)
			size += (float64(len(k)) + storage.IndexEntryOverhead) * w.weight[i] // an entry: keystring and its key's overhead
		}
		out[i] = ks
	}
	w.keys[ix.ID] = out
	// ix is this call's own descriptor, not published: it takes the
	// sample's multikey paths before its planner view is derived.
	ix.MultikeyPaths = ix.MultikeyPaths[:0]
	for p := range paths {
		ix.MultikeyPaths = append(ix.MultikeyPaths, p)
	}
	sort.Strings(ix.MultikeyPaths)
	ix.Multikey = len(ix.MultikeyPaths) > 0
	pi := ix.PlanIndex(qc)
	return pi, int64(size), nil
}

// PlanSummary renders a solution as mongod's planSummary.
func PlanSummary(s *plan.Solution) string {
	var parts []string
	seen := map[string]bool{}
	walkSolution(s.Root, func(n *plan.Node) {
		var p string
		switch {
		case n.Stage == plan.StageCollScan, n.Stage == plan.StageEOF:
			p = n.Stage
		case n.Index != nil:
			p = n.Stage + " " + keyPatternText(n.Index.KeyPattern)
		default:
			return
		}
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	})
	return strings.Join(parts, ", ")
}

// keyPatternText prints a key pattern as mongod's planSummary does:
// { a: 1, b: -1 }.
func keyPatternText(key bsoncore.Document) string {
	elems, _ := key.Elements()
	parts := make([]string, len(elems))
	for i, e := range elems {
		v := e.Value()
		s := v.String()
		if n, ok := v.AsInt64OK(); ok {
			s = fmt.Sprint(n)
		} else if d, ok := v.DoubleOK(); ok {
			s = fmt.Sprint(d)
		} else if str, ok := v.StringValueOK(); ok {
			s = fmt.Sprintf("%q", str)
		}
		parts[i] = e.Key() + ": " + s
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}
