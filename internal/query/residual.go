package query

// Without returns a filter that matches like f without the conjuncts in
// drop (nodes of f's tree, compared by identity, at its top level or in
// nested $and), or nil when nothing remains. f itself is unchanged; the
// returned filter shares its nodes.
func (f *Filter) Without(drop []Node) *Filter {
	if len(drop) == 0 {
		return f
	}
	root := without(f.root, drop)
	if root == nil {
		return nil
	}
	return &Filter{root: root, fail: f.fail}
}

func without(n Node, drop []Node) Node {
	for _, d := range drop {
		if n == d {
			return nil
		}
	}
	a, ok := n.(*AndNode)
	if !ok {
		return n
	}
	var kids []Node
	for _, c := range a.Children {
		if k := without(c, drop); k != nil {
			kids = append(kids, k)
		}
	}
	switch len(kids) {
	case 0:
		if len(a.Children) == 0 {
			return a // the empty filter stays
		}
		return nil
	case 1:
		return kids[0]
	}
	return &AndNode{Children: kids}
}
