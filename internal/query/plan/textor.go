package plan

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
)

// textOrSolution plans a top-level $or with a $text branch as mongod 7.0
// does: an OR (dropping records already returned) over the text branch's
// TEXT_MATCH > TEXT_OR > IXSCANs and, for each other branch, a scan of
// an index (under a FETCH applying the branch when the bounds are not
// exact), all under a FETCH. A branch no index
// answers is NoQueryExecutionPlans (291). The text branch comes first,
// so a document both branches match carries its text score.
func textOrSolution(p Params, textAt int, tn *query.TextNode) ([]*Solution, error) {
	or := p.Filter.Root().(*query.OrNode)
	branchDocs := orBranchDocs(p.FilterDoc)
	branchDoc := func(i int) bsoncore.Document {
		if i < len(branchDocs) {
			return branchDocs[i]
		}
		return nil
	}
	tp := p
	tp.Filter = p.Filter.Branch(or.Children[textAt])
	tp.FilterDoc = branchDoc(textAt)
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
		branch := branchPlan(p, p.Filter.Branch(c), branchDoc(i))
		if branch == nil {
			return nil, errs.New(errs.NoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.")
		}
		node.Children = append(node.Children, branch)
		node.Scored = append(node.Scored, false)
	}
	// The FETCH reads the documents of the index scans' records; the
	// text branch's are already read.
	root := &Node{Stage: StageFetch, Children: []*Node{node}}
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

// orBranchDocs returns the documents of a filter's top-level $or array.
func orBranchDocs(filter bsoncore.Document) []bsoncore.Document {
	v, err := filter.LookupErr("$or")
	if err != nil {
		return nil
	}
	arr, ok := v.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	var out []bsoncore.Document
	for _, x := range vals {
		d, _ := x.DocumentOK()
		out = append(out, d)
	}
	return out
}
