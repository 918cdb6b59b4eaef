package query

import "math"

// TextOrBranch finds a $text that is a branch of an $or at the top level
// of the filter (its root, or a conjunct of a root $and): the branch is
// the $text itself or a $and holding it directly. It returns the $or,
// the branch's position and the $text, or nil, -1 and nil.
func TextOrBranch(f *Filter) (*OrNode, int, *TextNode) {
	if f == nil {
		return nil, -1, nil
	}
	ors := []Node{f.root}
	if a, ok := f.root.(*AndNode); ok {
		ors = a.Children
	}
	for _, n := range ors {
		or, ok := n.(*OrNode)
		if !ok {
			continue
		}
		for i, c := range or.Children {
			switch t := c.(type) {
			case *TextNode:
				return or, i, t
			case *AndNode:
				for _, k := range t.Children {
					if tn, ok := k.(*TextNode); ok {
						return or, i, tn
					}
				}
			}
		}
	}
	return nil, -1, nil
}

// Branch returns a filter matching like the node n of f's tree, with f's
// collation.
func (f *Filter) Branch(n Node) *Filter { return &Filter{root: n, coll: f.coll, fail: f.fail} }

// NoScore is the text score of a document that a $text $or returns
// through a branch other than the $text (NaN, which no score is): a
// {$meta: "textScore"} projection leaves it out and a sort takes it as 0.
var NoScore = math.NaN()
