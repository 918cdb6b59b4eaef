package plan

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// textOrSolution plans an $or with a $text branch (the filter or one of
// its top-level conjuncts) as mongod 7.0 does: an OR (dropping records
// already returned) over the text branch's TEXT_MATCH > TEXT_OR > IXSCANs
// and, for each other branch, a scan of an index (under a FETCH applying
// the branch when the bounds are not exact), all under a FETCH applying
// the conjuncts beside the $or. A branch no index answers is
// NoQueryExecutionPlans (291). The text branch comes first, so a
// document both branches match carries its text score.
func textOrSolution(p Params, or *query.OrNode, textAt int, tn *query.TextNode) ([]*Solution, error) {
	if p.Hint.Type != 0 {
		return nil, errs.New(errs.NotImplemented, "a hint with $text inside $or is not supported by Lode")
	}
	tp := p
	tp.Filter = p.Filter.Branch(or.Children[textAt])
	tp.FilterDoc = tp.Filter.Serialize()
	ts, err := textSolution(tp, tn)
	if err != nil {
		return nil, err
	}
	textOr := ts.Root.Children[0]
	textOr.BranchFilter, textOr.BranchFilterDoc = tp.Filter, tp.FilterDoc
	node := &Node{Stage: StageOr, Dedup: true, Children: []*Node{ts.Root}, Scored: []bool{true}}
	for i, c := range or.Children {
		if i == textAt {
			continue
		}
		bf := p.Filter.Branch(c)
		branch := branchPlan(p, bf, bf.Serialize())
		if branch == nil {
			if p.Filter.Root() != or {
				// mongod words its error for a root $or only.
				return nil, errs.New(errs.NoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: No query solutions")
			}
			return nil, errs.New(errs.NoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.")
		}
		node.Children = append(node.Children, branch)
		node.Scored = append(node.Scored, false)
	}
	// The FETCH reads the documents of the index scans' records (the
	// text branch's are already read) and applies the conjuncts beside
	// the $or.
	root := &Node{Stage: StageFetch, Children: []*Node{node}}
	if rest := p.Filter.Without([]query.Node{or}); rest != nil {
		root.Filter, root.BranchFilter, root.BranchFilterDoc = true, rest, rest.Serialize()
	}
	return []*Solution{{Root: root, BlockingSort: p.Sort != nil && !p.Sort.Empty(), Index: ts.Index}}, nil
}

// branchPlan returns the best index scan for one branch of an $or: the
// IXSCAN alone when its bounds are exact, else a FETCH applying the
// branch over it; nil when no index has bounds on the branch.
func branchPlan(p Params, f *query.Filter, doc bsoncore.Document) *Node {
	c := f.Root()
	var preds []pred
	collectPreds(c, "", nil, "", true, &preds, scopeOf(p.Indexes))
	conj, leaf := countConjuncts(c)
	var best *Solution
	for _, ix := range p.Indexes {
		b := indexBounds(ix, preds, conj, leaf)
		if b.fields[0].OIL.IsFull() || !usable(ix, preds, b) {
			continue
		}
		s := indexSolution(Params{Indexes: p.Indexes, Filter: f}, ix, preds, conj, leaf, false)
		if s != nil && (best == nil || s.rank < best.rank) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	scan := best.Root
	exact := scan.Stage == StageFetch && !scan.Filter
	for scan.Stage != StageIxScan {
		if len(scan.Children) == 0 {
			return nil
		}
		scan = scan.Children[0]
	}
	if exact {
		return scan
	}
	return &Node{Stage: StageFetch, Filter: true, Children: []*Node{scan}, BranchFilter: f, BranchFilterDoc: doc}
}
