package plan

import (
	"bytes"

	"github.com/lodedb/lode/internal/query"
)

// StageAndSorted intersects index scans that return record ids in order.
const StageAndSorted = "AND_SORTED"

// maxAndScans bounds the scans one AND_SORTED intersects.
const maxAndScans = 4

// andSortedSolution returns FETCH > AND_SORTED > IXSCAN... over ix when
// several $elemMatch conjuncts of the filter (top-level, or the elements
// of a top-level $all) each bound every field of ix to a single point:
// then each scan reads one keystring, its entries ordered by record id,
// and the documents that have all the keys are the intersection. Seed
// 002's {metadata: {$all: [{$elemMatch: {key: K1, value: V1}},
// {$elemMatch: {key: K2, value: V2}}]}} over {"metadata.key": 1,
// "metadata.value": 1} reads the documents that have both pairs instead
// of every document with the first. FETCH applies the whole filter.
func andSortedSolution(ix *Index, root query.Node) *Solution {
	var kids []*Node
	var seen [][]byte
	add := func(n query.Node) {
		if len(kids) == maxAndScans {
			return
		}
		var preds []pred
		collectPreds(n, "", nil, "", false, &preds, scopeOfIndex(ix))
		b := indexBounds(ix, preds, 1, false)
		var key []byte
		for _, f := range b.fields {
			if len(f.OIL) != 1 || !f.OIL.AllPoints() {
				return
			}
			key = append(key, f.OIL[0].Lo.Data...)
			key = append(key, byte(f.OIL[0].Lo.Type), 0xff)
		}
		for _, k := range seen {
			if bytes.Equal(k, key) {
				return // the same scan twice intersects nothing more
			}
		}
		seen = append(seen, key)
		kids = append(kids, &Node{Stage: StageIxScan, Index: ix, Bounds: b.fields, Direction: 1})
	}
	var visit func(n query.Node, top bool)
	visit = func(n query.Node, top bool) {
		switch t := n.(type) {
		case *query.AndNode:
			if top {
				for _, c := range t.Children {
					visit(c, false)
				}
			}
		case *query.AllNode:
			for _, e := range t.Nodes {
				if _, ok := e.(*query.ElemMatchObjectNode); ok {
					add(e)
				}
			}
		case *query.ElemMatchObjectNode:
			add(t)
		}
	}
	visit(root, true)
	if len(kids) < 2 {
		return nil
	}
	and := &Node{Stage: StageAndSorted, Children: kids}
	s := &Solution{Index: ix, Root: &Node{Stage: StageFetch, Filter: true, Children: []*Node{and}}}
	// Ranked after the single scans of the same index: the trial run
	// decides between them.
	s.rank = -len(ix.Fields)*100 - len(ix.Fields)*10 + 1
	return s
}
