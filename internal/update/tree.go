package update

import (
	"sort"
	"strings"

	"github.com/lodedb/lode/internal/errs"
)

// node is one node of the update tree. A leaf carries an operator; an
// interior node has children keyed by path component. An interior node is
// either an object node (field names, array indexes and the positional
// "$") or an array node (children "$[]" and "$[<identifier>]").
type node struct {
	leaf      leafOp
	kids      map[string]*node
	order     []string // kids' keys in MongoDB's application order, "$" excluded
	arrayKind bool
}

// lessField orders path components as mongod applies them: names that are
// both decimal numbers compare numerically, others as strings.
func lessField(a, b string) bool {
	if isDigits(a) && isDigits(b) {
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			return len(a) < len(b)
		}
	}
	return a < b
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isArrayComponent(s string) bool {
	return strings.HasPrefix(s, "$[") && strings.HasSuffix(s, "]")
}

// insert merges a leaf at parts into the tree rooted at n, reporting
// conflicts as mongod's UpdateObjectNode::parseAndMerge does.
func (n *node) insert(parts []string, leaf leafOp, full string) error {
	cur := n
	for i, p := range parts {
		last := i == len(parts)-1
		if cur.kids == nil {
			cur.kids = map[string]*node{}
			cur.arrayKind = isArrayComponent(p)
		} else if cur.arrayKind != isArrayComponent(p) || cur.leaf != nil {
			return conflict(full, strings.Join(parts[:i], "."))
		}
		child := cur.kids[p]
		if last {
			if child != nil {
				return conflict(full, full)
			}
			cur.kids[p] = &node{leaf: leaf}
			return nil
		}
		if child == nil {
			child = &node{}
			cur.kids[p] = child
		} else if child.leaf != nil {
			return conflict(full, strings.Join(parts[:i+1], "."))
		}
		cur = child
	}
	return nil
}

func conflict(path, at string) error {
	return errs.New(errs.ConflictingUpdateOperators,
		"Updating the path '%s' would create a conflict at '%s'", path, at)
}

// finish computes the application order of every interior node.
func (n *node) finish() {
	if n.leaf != nil {
		return
	}
	n.order = n.order[:0]
	for k, c := range n.kids {
		if k != "$" {
			n.order = append(n.order, k)
		}
		c.finish()
	}
	sort.Slice(n.order, func(i, j int) bool { return lessField(n.order[i], n.order[j]) })
}

// merge combines two subtrees that apply to the same array element, as
// mongod merges the children of an array node. Two leaves at one path are
// a conflict.
func merge(a, b *node, path string) (*node, error) {
	if a.leaf != nil || b.leaf != nil {
		return nil, errs.New(errs.ConflictingUpdateOperators, "Update created a conflict at '%s'", path)
	}
	if a.arrayKind != b.arrayKind && len(a.kids) > 0 && len(b.kids) > 0 {
		return nil, errs.New(errs.ConflictingUpdateOperators, "Update created a conflict at '%s'", path)
	}
	m := &node{kids: map[string]*node{}, arrayKind: a.arrayKind || b.arrayKind}
	for k, c := range a.kids {
		m.kids[k] = c
	}
	for k, c := range b.kids {
		if prev, ok := m.kids[k]; ok {
			mc, err := merge(prev, c, path+"."+k)
			if err != nil {
				return nil, err
			}
			m.kids[k] = mc
			continue
		}
		m.kids[k] = c
	}
	for k := range m.kids {
		if k != "$" {
			m.order = append(m.order, k)
		}
	}
	sort.Slice(m.order, func(i, j int) bool { return lessField(m.order[i], m.order[j]) })
	return m, nil
}
