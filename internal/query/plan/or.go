package plan

import (
	"github.com/lodedb/lode/internal/query"
)

// orSolution plans a top-level $or whose every branch can use an index:
// one index scan per branch under an OR stage that drops duplicate
// records, then a FETCH with the whole filter. It returns nil when some
// branch has no usable index.
func orSolution(p Params, root query.Node) *Solution {
	or, ok := root.(*query.OrNode)
	if !ok || len(or.Children) == 0 {
		return nil
	}
	node := &Node{Stage: StageOr, Dedup: true}
	for _, c := range or.Children {
		var preds []pred
		collectPreds(c, "", nil, "", true, &preds, scopeOf(p.Indexes))
		conj, leaf := countConjuncts(c)
		var best *Solution
		for _, ix := range p.Indexes {
			b := indexBounds(ix, preds, conj, leaf)
			if b.fields[0].OIL.IsFull() || !usable(ix, preds, b) {
				continue
			}
			s := indexSolution(Params{Indexes: p.Indexes}, ix, preds, conj, leaf, false)
			if s != nil && (best == nil || s.rank < best.rank) {
				best = s
			}
		}
		if best == nil {
			return nil
		}
		scan := best.Root
		for scan.Stage != StageIxScan {
			scan = scan.Children[0]
		}
		node.Children = append(node.Children, scan)
	}
	return &Solution{
		Root:         &Node{Stage: StageFetch, Filter: true, Children: []*Node{node}},
		BlockingSort: p.Sort != nil,
		rank:         1 << 29,
	}
}
