package engine

import (
	"bytes"
	"math"
	"sort"

	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
)

// wiEntry is one sampled index key within a scan's ranges.
type wiEntry struct {
	key    []byte
	doc    int
	passes bool
}

// wiScan is one IXSCAN of a candidate with its sampled keys in scan order.
type wiScan struct {
	entries []wiEntry
	pos     int
	// skip is the point-prefix length under SORT_MERGE.
	skip int
}

// estimate walks the sampled keys of s's scans as s would and returns
// the keys and documents it examines, per execution, at collection scale.
func (w *whatIfSample) estimate(s *plan.Solution, q WhatIfQuery) (WhatIfPlan, error) {
	p := WhatIfPlan{Summary: PlanSummary(s), BlockingSort: s.BlockingSort}
	if s.Index != nil {
		p.Index = s.Index.Name
	}
	limit := q.Limit
	streaming := limit > 0 && !s.BlockingSort
	// With a sample, stop at the share of the limit the sample holds.
	want := limit
	if streaming && w.scale > 1 {
		want = max(1, int64(math.Round(float64(limit)/w.scale)))
	}
	var nodes []*plan.Node
	var merge *plan.Node
	other := false
	walkSolution(s.Root, func(n *plan.Node) {
		switch n.Stage {
		case plan.StageIxScan:
			nodes = append(nodes, n)
		case plan.StageSortMerge:
			merge = n
		case plan.StageCollScan, plan.StageFetch, plan.StageOr, plan.StageEOF:
		default:
			other = true
		}
	})
	if s.Root.Stage == plan.StageEOF {
		return p, nil
	}
	if s.Root.Stage == plan.StageCollScan || other || len(nodes) == 0 {
		// Text, geo and distinct scans are costed as a collection scan:
		// the advisor never proposes such indexes.
		docs, results := w.walkCollection(streaming, want)
		p.DocsExamined, p.Returned = w.scaled(float64(docs)), w.capped(float64(results), limit)
		return p, nil
	}
	fetch := !(s.Covered && q.Count) && !s.CoveredProjection
	scans := make([]*wiScan, len(nodes))
	for i, n := range nodes {
		sc, err := w.scanOf(n, merge)
		if err != nil {
			return p, err
		}
		scans[i] = sc
	}
	var keys, docs, results int64
	seen := map[int]bool{}
	// visit handles a key read by the scans; it returns true at the limit.
	visit := func(e wiEntry) bool {
		if !e.passes || seen[e.doc] {
			return false
		}
		seen[e.doc] = true
		if fetch {
			docs++
		}
		if w.matches[e.doc] {
			results++
		}
		return streaming && results >= want
	}
	// heads are the keys SORT_MERGE reads ahead, one per scan: they do
	// not grow with the collection, so they are not scaled.
	var heads int64
	if merge != nil {
		var stopped bool
		keys, heads, stopped = w.walkMerge(scans, merge, visit)
		if !stopped {
			heads = 0
		}
	} else {
	seq:
		for _, sc := range scans {
			for _, e := range sc.entries {
				keys++
				if visit(e) {
					break seq
				}
			}
		}
	}
	p.KeysExamined, p.DocsExamined = w.scaled(float64(keys)), w.scaled(float64(docs))
	if heads > 0 && w.scale > 1 {
		// Stopped at the limit: heads + refills, the refills (one per
		// result but the last) scaling with the limit.
		p.KeysExamined = float64(heads) + w.scaled(float64(keys-heads+1)) - 1
	}
	p.Returned = w.capped(float64(results), limit)
	return p, nil
}

// scaled turns a sample count into a collection estimate.
func (w *whatIfSample) scaled(n float64) float64 { return n * w.scale }

// capped scales a sampled result count and caps it at the limit.
func (w *whatIfSample) capped(n float64, limit int64) float64 {
	n = w.scaled(n)
	if limit > 0 {
		n = math.Min(n, float64(limit))
	}
	return n
}

// walkCollection scans the sample in storage order.
func (w *whatIfSample) walkCollection(streaming bool, want int64) (docs, results int64) {
	for i := range w.docs {
		docs++
		if w.matches[i] {
			results++
			if streaming && results >= want {
				break
			}
		}
	}
	return docs, results
}

// scanOf collects the sampled keys of n's index within its bounds, in
// scan order.
func (w *whatIfSample) scanOf(n *plan.Node, merge *plan.Node) (*wiScan, error) {
	ix := w.indexes[n.Index.ID]
	sc := &wiScan{}
	if ix == nil {
		return sc, nil
	}
	all, err := w.keysOf(ix)
	if err != nil {
		return nil, err
	}
	bc := exec.NewBoundsChecker(n.Bounds)
	for d, keys := range all {
		for _, k := range keys {
			if read, passes := bc.Check(k); read {
				sc.entries = append(sc.entries, wiEntry{key: k, doc: d, passes: passes})
			}
		}
	}
	sort.SliceStable(sc.entries, func(i, j int) bool { return bytes.Compare(sc.entries[i].key, sc.entries[j].key) < 0 })
	if n.Direction < 0 {
		for i, j := 0, len(sc.entries)-1; i < j; i, j = i+1, j-1 {
			sc.entries[i], sc.entries[j] = sc.entries[j], sc.entries[i]
		}
	}
	if merge != nil {
		var pfx []byte
		for f := 0; f < n.MergePrefixFields && f < len(n.Bounds); f++ {
			fb := n.Bounds[f]
			pfx = keystring.AppendValue(pfx, fb.OIL[0].Lo, fb.Desc)
		}
		sc.skip = len(pfx)
	}
	return sc, nil
}

// walkMerge merges the scans in sort order as SORT_MERGE does: each scan
// holds one key ahead, the smallest (by the bytes after the scan's point
// prefix) is consumed, and its scan advanced when the merge goes on, until
// visit stops it.
func (w *whatIfSample) walkMerge(scans []*wiScan, merge *plan.Node, visit func(wiEntry) bool) (keys, heads int64, stopped bool) {
	reverse := len(merge.Children) > 0 && firstScanDir(merge) < 0
	for _, sc := range scans {
		if len(sc.entries) > 0 {
			keys++
		}
	}
	heads = keys
	for {
		best := -1
		for i, sc := range scans {
			if sc.pos >= len(sc.entries) {
				continue
			}
			if best < 0 {
				best = i
				continue
			}
			b := scans[best]
			c := bytes.Compare(sc.entries[sc.pos].key[sc.skip:], b.entries[b.pos].key[b.skip:])
			if reverse {
				c = -c
			}
			if c < 0 {
				best = i
			}
		}
		if best < 0 {
			return keys, heads, false
		}
		sc := scans[best]
		e := sc.entries[sc.pos]
		if visit(e) {
			return keys, heads, true
		}
		// The scan refills its head only when the merge goes on.
		sc.pos++
		if sc.pos < len(sc.entries) {
			keys++
		}
	}
}

// firstScanDir returns the direction of the first IXSCAN under n.
func firstScanDir(n *plan.Node) int {
	dir := 1
	found := false
	walkSolution(n, func(m *plan.Node) {
		if !found && m.Stage == plan.StageIxScan {
			dir, found = m.Direction, true
		}
	})
	return dir
}

// collScanPreferred reports the collection scan Lode's find would run
// instead of the chosen plan (collscanpref.go): a find without limit
// whose plain FETCH > IXSCAN holds more than half the collection.
func (w *whatIfSample) collScanPreferred(chosen WhatIfPlan, s *plan.Solution, q WhatIfQuery, req planReq) (WhatIfPlan, bool) {
	if !q.Find || q.Limit > 0 || q.Count || w.total < MinCollScanPreferDocs {
		return chosen, false
	}
	if replaceableScan(s, req) == nil || chosen.KeysExamined*collScanShareDen <= float64(w.total*collScanShareNum) {
		return chosen, false
	}
	docs, results := w.walkCollection(false, 0)
	return WhatIfPlan{Summary: plan.StageCollScan, BlockingSort: req.sort != nil,
		DocsExamined: w.scaled(float64(docs)), Returned: w.scaled(float64(results))}, true
}
