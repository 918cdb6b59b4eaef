package query

import "math"

// TextOrBranch finds a $text that is a branch of a top-level $or: the
// branch is the $text itself or a $and holding it directly. It returns
// the branch's position and the $text, or -1 and nil.
func TextOrBranch(f *Filter) (int, *TextNode) {
	if f == nil {
		return -1, nil
	}
	or, ok := f.root.(*OrNode)
	if !ok {
		return -1, nil
	}
	for i, c := range or.Children {
		switch t := c.(type) {
		case *TextNode:
			return i, t
		case *AndNode:
			for _, k := range t.Children {
				if tn, ok := k.(*TextNode); ok {
					return i, tn
				}
			}
		}
	}
	return -1, nil
}

// Branch returns a filter matching like the node n of f's tree, with f's
// collation.
func (f *Filter) Branch(n Node) *Filter { return &Filter{root: n, coll: f.coll} }

// NoScore is the text score of a document that a $text $or returns
// through a branch other than the $text (NaN, which no score is): a
// {$meta: "textScore"} projection leaves it out and a sort takes it as 0.
var NoScore = math.NaN()
