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
// the keys and documents it examines, per execution, each sampled key and
// document counting for its document's weight.
func (w *whatIfSample) estimate(s *plan.Solution, q WhatIfQuery) (WhatIfPlan, error) {
	p := WhatIfPlan{Summary: PlanSummary(s), BlockingSort: s.BlockingSort}
	if s.Index != nil {
		p.Index = s.Index.Name
	}
	limit := float64(q.Limit)
	streaming := q.Limit > 0 && !s.BlockingSort
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
		p.DocsExamined, p.Returned = w.walkCollection(streaming, limit)
		p.Returned = capAt(p.Returned, limit)
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
	k := &wiWalk{w: w, seen: map[int]bool{}, fetch: fetch, streaming: streaming, limit: limit}
	if merge != nil {
		w.walkMerge(scans, merge, k)
	} else {
	seq:
		for _, sc := range scans {
			for _, e := range sc.entries {
				wt := w.weight[e.doc]
				k.keys += wt
				if k.visit(e, wt) {
					break seq
				}
			}
		}
	}
	p.KeysExamined, p.DocsExamined, p.Returned = k.keys, k.docs, capAt(k.results, limit)
	return p, nil
}

// wiWalk accumulates the weighted figures of a walk over sampled keys.
type wiWalk struct {
	w                   *whatIfSample
	keys, docs, results float64
	seen                map[int]bool
	fetch, streaming    bool
	limit               float64
}

// visit handles key e, already counted as read for added; it returns true
// at the limit. The result that reaches the limit counts only for the
// part of its weight the limit needs, and so do its key and document (a
// claim returning one job out of a stratum weighted 10 reads one key).
func (k *wiWalk) visit(e wiEntry, added float64) bool {
	if !e.passes || k.seen[e.doc] {
		return false
	}
	k.seen[e.doc] = true
	wt := k.w.weight[e.doc]
	m := k.w.matches[e.doc]
	frac := 1.0
	if k.streaming && m && k.results+wt > k.limit {
		frac = (k.limit - k.results) / wt
		// The key keeps the needed part of its weight, but at least the
		// one key really read.
		k.keys -= added - math.Max(math.Min(added, 1), added*frac)
	}
	if k.fetch {
		k.docs += wt * frac
	}
	if m {
		k.results += wt * frac
	}
	return k.streaming && k.results >= k.limit
}

// capAt caps n at limit (0: no limit).
func capAt(n, limit float64) float64 {
	if limit > 0 {
		return math.Min(n, limit)
	}
	return n
}

// walkCollection scans the sample in storage order and returns the
// documents examined and matched.
func (w *whatIfSample) walkCollection(streaming bool, limit float64) (docs, results float64) {
	for i := range w.docs {
		wt := w.weight[i]
		if streaming && w.matches[i] && results+wt > limit {
			frac := (limit - results) / wt
			return docs + wt*frac, limit
		}
		docs += wt
		if w.matches[i] {
			results += wt
			if streaming && results >= limit {
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
// holds one key ahead (read once, whatever the sample's weights), the
// smallest (by the bytes after the scan's point prefix) is consumed, and
// its scan advanced when the merge goes on, until visit stops it. It
// adds the keys examined to k.
func (w *whatIfSample) walkMerge(scans []*wiScan, merge *plan.Node, k *wiWalk) {
	reverse := len(merge.Children) > 0 && firstScanDir(merge) < 0
	added := make([]float64, len(scans)) // what each scan's head counted for
	for i, sc := range scans {
		if len(sc.entries) > 0 {
			k.keys++
			added[i] = 1
		}
	}
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
			return
		}
		sc := scans[best]
		e := sc.entries[sc.pos]
		if k.visit(e, added[best]) {
			return
		}
		// The scan refills its head only when the merge goes on.
		sc.pos++
		if sc.pos < len(sc.entries) {
			added[best] = w.weight[sc.entries[sc.pos].doc]
			k.keys += added[best]
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
	if replaceableScan(s, req) == nil || chosen.KeysExamined*collScanShareDen <= float64(w.total)*collScanShareNum {
		return chosen, false
	}
	docs, results := w.walkCollection(false, 0)
	return WhatIfPlan{Summary: plan.StageCollScan, BlockingSort: req.sort != nil, DocsExamined: docs, Returned: results}, true
}
