package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// Kinds of projection tree entries.
const (
	pInclude = iota + 1
	pExclude
	pExpr
	pNested
)

// pnode is one level of a $project/$addFields specification: its fields in
// specification order.
type pnode struct {
	order    []string
	children map[string]*pchild
}

// pchild is one field of a pnode.
type pchild struct {
	kind int
	e    expr.Expr
	sub  *pnode
}

func newPnode() *pnode { return &pnode{children: map[string]*pchild{}} }

// hasComputed reports whether the subtree holds an expression.
func (n *pnode) hasComputed() bool {
	for _, c := range n.children {
		if c.kind == pExpr || (c.kind == pNested && c.sub.hasComputed()) {
			return true
		}
	}
	return false
}

// onlyIncludes reports whether the tree holds inclusions only (it may then
// be pushed down as a find projection).
func (n *pnode) onlyIncludes() bool {
	for k, c := range n.children {
		switch c.kind {
		case pExpr:
			return false
		case pNested:
			if !c.sub.onlyIncludes() {
				return false
			}
		case pExclude:
			if k != "_id" {
				return false
			}
		}
	}
	return true
}

// at walks (creating) the nested nodes of a dotted path and returns the
// node holding its last part.
func (n *pnode) at(stageName, path string) (*pnode, string, error) {
	if path == "" {
		return nil, "", errs.New(errs.Location40352, "Invalid %s :: caused by :: FieldPath cannot be constructed with empty string", stageName)
	}
	if path[0] == '$' {
		return nil, "", errs.New(errs.Location16410, "Invalid %s :: caused by :: FieldPath field names may not start with '$'. Consider using $getField or $setField.", stageName)
	}
	parts := strings.Split(path, ".")
	cur := n
	for i, p := range parts {
		if p == "" {
			return nil, "", errs.New(errs.Location15998, "Invalid %s :: caused by :: FieldPath field names may not be empty strings.", stageName)
		}
		if i == len(parts)-1 {
			if _, dup := cur.children[p]; dup {
				return nil, "", errs.New(errs.Location31250, "Invalid %s :: caused by :: Path collision at %s", stageName, path)
			}
			return cur, p, nil
		}
		c, ok := cur.children[p]
		if !ok {
			c = &pchild{kind: pNested, sub: newPnode()}
			cur.children[p] = c
			cur.order = append(cur.order, p)
		} else if c.kind == pExpr {
			// A computed field below a computed one.
			return nil, "", errs.New(errs.Location31249, "Invalid %s :: caused by :: Path collision at %s remaining portion %s", stageName, path, strings.Join(parts[i+1:], "."))
		} else if c.kind != pNested {
			return nil, "", errs.New(errs.Location31250, "Invalid %s :: caused by :: Path collision at %s", stageName, strings.Join(parts[:i+1], "."))
		}
		cur = c.sub
	}
	return cur, "", nil
}

// nestedAt returns the sub-projection at path for a nested
// specification ({b: {a: 1}}), creating it, or joining the one a dotted
// path made ({"b.c": 1, b: {a: 1}} projects both, as mongod does).
func (n *pnode) nestedAt(stageName, path string) (*pnode, error) {
	node, leaf, err := n.at(stageName, path)
	if err == nil {
		sub := newPnode()
		node.set(leaf, &pchild{kind: pNested, sub: sub})
		return sub, nil
	}
	// The path exists: join it when it is a sub-projection all the way.
	cur := n
	for _, p := range strings.Split(path, ".") {
		c := cur.children[p]
		if c == nil || c.kind != pNested {
			return nil, err
		}
		cur = c.sub
	}
	return cur, nil
}

func (n *pnode) set(key string, c *pchild) {
	n.children[key] = c
	n.order = append(n.order, key)
}

// isOperatorDoc reports whether v is a document whose first key starts
// with '$' (an expression rather than a nested specification).
func isOperatorDoc(v bsoncore.Value) bool {
	d, ok := v.DocumentOK()
	if !ok {
		return false
	}
	el, err := d.IndexErr(0)
	return err == nil && strings.HasPrefix(el.Key(), "$")
}

func isEmptyDoc(v bsoncore.Value) bool {
	d, ok := v.DocumentOK()
	if !ok {
		return false
	}
	_, err := d.IndexErr(0)
	return err != nil
}

// projMode tracks whether a $project is an inclusion or an exclusion.
type projMode struct {
	mode       int // 0 unknown, pInclude, pExclude
	idExcluded bool
	idSet      bool
}

// parseProjectTree parses a $project specification into n.
func parseProjectTree(n *pnode, d bsoncore.Document, pc *ParseContext, m *projMode, prefix string) error {
	elems, err := d.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid $project: %v", err)
	}
	for _, el := range elems {
		key, v := el.Key(), el.Value()
		full := prefix + key
		if v.Type == bsoncore.TypeEmbeddedDocument && !isOperatorDoc(v) {
			if isEmptyDoc(v) {
				return errs.New(errs.Location51270, "Invalid $project :: caused by :: An empty sub-projection is not a valid value. Found empty object at path")
			}
			sub, err := n.nestedAt("$project", key)
			if err != nil {
				return err
			}
			if err := parseProjectTree(sub, v.Document(), pc, m, full+"."); err != nil {
				return err
			}
			continue
		}
		node, leaf, err := n.at("$project", key)
		if err != nil {
			return err
		}
		top := prefix == "" && key == "_id"
		switch {
		case v.Type == bsoncore.TypeBoolean || bsonutil.IsNumber(v.Type):
			if expr.Truthy(v) {
				if top {
					m.idSet = true
				} else {
					if m.mode == pExclude {
						return errs.New(errs.Location31253, "Invalid $project :: caused by :: Cannot do inclusion on field %s in exclusion projection", full)
					}
					m.mode = pInclude
				}
				node.set(leaf, &pchild{kind: pInclude})
			} else {
				if top {
					m.idExcluded, m.idSet = true, true
				} else {
					if m.mode == pInclude {
						return errs.New(errs.Location31254, "Invalid $project :: caused by :: Cannot do exclusion on field %s in inclusion projection", full)
					}
					m.mode = pExclude
				}
				node.set(leaf, &pchild{kind: pExclude})
			}
		default:
			if m.mode == pExclude {
				return errs.New(errs.Location31252, "Invalid $project :: caused by :: Cannot use expression other than $meta in exclusion projection")
			}
			e, err := expr.Parse(v, pc.Expr)
			if err != nil {
				return err
			}
			if !top {
				m.mode = pInclude
			} else {
				m.idSet = true
			}
			node.set(leaf, &pchild{kind: pExpr, e: e})
		}
	}
	return nil
}

// parseSetTree parses an $addFields specification: every leaf is an
// expression, and nested plain documents set fields inside embedded
// documents.
func parseSetTree(n *pnode, stageName string, d bsoncore.Document, pc *ParseContext) error {
	elems, err := d.Elements()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid %s: %v", stageName, err)
	}
	for _, el := range elems {
		node, leaf, err := n.at(stageName, el.Key())
		if err != nil {
			return err
		}
		v := el.Value()
		if v.Type == bsoncore.TypeEmbeddedDocument && !isOperatorDoc(v) && !isEmptyDoc(v) {
			sub := newPnode()
			node.set(leaf, &pchild{kind: pNested, sub: sub})
			if err := parseSetTree(sub, stageName, v.Document(), pc); err != nil {
				return err
			}
			continue
		}
		e, err := expr.Parse(v, pc.Expr)
		if err != nil {
			return err
		}
		node.set(leaf, &pchild{kind: pExpr, e: e})
	}
	return nil
}

var emptyDoc = bsoncore.Document{5, 0, 0, 0, 0}

// include applies an inclusion projection to cur (root is $$ROOT).
func (n *pnode) include(root, cur bsoncore.Document, vars *expr.Vars) (bsoncore.Document, error) {
	idx, out := bsoncore.AppendDocumentStart(nil)
	var seen map[string]bool
	elems, _ := cur.Elements()
	for _, el := range elems {
		c := n.children[el.Key()]
		if c == nil {
			continue
		}
		switch c.kind {
		case pInclude:
			out = append(out, el...)
		case pNested:
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[el.Key()] = true
			v := el.Value()
			switch v.Type {
			case bsoncore.TypeEmbeddedDocument:
				sub, err := c.sub.include(root, v.Document(), vars)
				if err != nil {
					return nil, err
				}
				out = bsoncore.AppendDocumentElement(out, el.Key(), sub)
			case bsoncore.TypeArray:
				arr, err := c.sub.includeArray(root, v.Array(), vars)
				if err != nil {
					return nil, err
				}
				out = bsoncore.AppendArrayElement(out, el.Key(), arr)
			default:
				if c.sub.hasComputed() {
					sub, err := c.sub.include(root, emptyDoc, vars)
					if err != nil {
						return nil, err
					}
					out = bsoncore.AppendDocumentElement(out, el.Key(), sub)
				}
			}
		}
	}
	for _, k := range n.order {
		c := n.children[k]
		switch {
		case c.kind == pExpr:
			v, err := c.e.Eval(root, vars)
			if err != nil {
				return nil, err
			}
			if !expr.IsMissing(v) {
				out = bsoncore.AppendValueElement(out, k, v)
			}
		case c.kind == pNested && !seen[k] && c.sub.hasComputed():
			sub, err := c.sub.include(root, emptyDoc, vars)
			if err != nil {
				return nil, err
			}
			out = bsoncore.AppendDocumentElement(out, k, sub)
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out, nil
}

func (n *pnode) includeArray(root bsoncore.Document, arr bsoncore.Array, vars *expr.Vars) (bsoncore.Array, error) {
	idx, out := bsoncore.AppendArrayStart(nil)
	vals, _ := arr.Values()
	i := 0
	for _, v := range vals {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			sub, err := n.include(root, v.Document(), vars)
			if err != nil {
				return nil, err
			}
			out = bsoncore.AppendDocumentElement(out, itoa(i), sub)
			i++
		case bsoncore.TypeArray:
			sub, err := n.includeArray(root, v.Array(), vars)
			if err != nil {
				return nil, err
			}
			out = bsoncore.AppendArrayElement(out, itoa(i), sub)
			i++
		default:
			if n.hasComputed() {
				sub, err := n.include(root, emptyDoc, vars)
				if err != nil {
					return nil, err
				}
				out = bsoncore.AppendDocumentElement(out, itoa(i), sub)
				i++
			}
		}
	}
	out, _ = bsoncore.AppendArrayEnd(out, idx)
	return out, nil
}

// exclude applies an exclusion projection.
func (n *pnode) exclude(cur bsoncore.Document) bsoncore.Document {
	idx, out := bsoncore.AppendDocumentStart(nil)
	elems, _ := cur.Elements()
	for _, el := range elems {
		c := n.children[el.Key()]
		switch {
		case c == nil || c.kind == pInclude:
			out = append(out, el...)
		case c.kind == pNested:
			v := el.Value()
			switch v.Type {
			case bsoncore.TypeEmbeddedDocument:
				out = bsoncore.AppendDocumentElement(out, el.Key(), c.sub.exclude(v.Document()))
			case bsoncore.TypeArray:
				out = bsoncore.AppendArrayElement(out, el.Key(), c.sub.excludeArray(v.Array()))
			default:
				out = append(out, el...)
			}
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

func (n *pnode) excludeArray(arr bsoncore.Array) bsoncore.Array {
	idx, out := bsoncore.AppendArrayStart(nil)
	vals, _ := arr.Values()
	for i, v := range vals {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			out = bsoncore.AppendDocumentElement(out, itoa(i), n.exclude(v.Document()))
		case bsoncore.TypeArray:
			out = bsoncore.AppendArrayElement(out, itoa(i), n.excludeArray(v.Array()))
		default:
			out = bsoncore.AppendValueElement(out, itoa(i), v)
		}
	}
	out, _ = bsoncore.AppendArrayEnd(out, idx)
	return out
}

// setFields applies an $addFields tree: computed fields replace existing
// ones in place or are appended; $$REMOVE (missing) removes the field.
func (n *pnode) setFields(root, cur bsoncore.Document, vars *expr.Vars) (bsoncore.Document, error) {
	idx, out := bsoncore.AppendDocumentStart(nil)
	var done map[string]bool
	elems, _ := cur.Elements()
	for _, el := range elems {
		c := n.children[el.Key()]
		if c == nil {
			out = append(out, el...)
			continue
		}
		if done == nil {
			done = map[string]bool{}
		}
		done[el.Key()] = true
		var err error
		out, err = n.setOne(out, el.Key(), c, root, el.Value(), vars)
		if err != nil {
			return nil, err
		}
	}
	for _, k := range n.order {
		if done[k] {
			continue
		}
		var err error
		out, err = n.setOne(out, k, n.children[k], root, bsoncore.Value{}, vars)
		if err != nil {
			return nil, err
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out, nil
}

func (n *pnode) setOne(out []byte, k string, c *pchild, root bsoncore.Document, old bsoncore.Value, vars *expr.Vars) ([]byte, error) {
	if c.kind == pExpr {
		v, err := c.e.Eval(root, vars)
		if err != nil {
			return nil, err
		}
		if !expr.IsMissing(v) {
			out = bsoncore.AppendValueElement(out, k, v)
		}
		return out, nil
	}
	switch old.Type {
	case bsoncore.TypeEmbeddedDocument:
		sub, err := c.sub.setFields(root, old.Document(), vars)
		if err != nil {
			return nil, err
		}
		return bsoncore.AppendDocumentElement(out, k, sub), nil
	case bsoncore.TypeArray:
		a, err := c.sub.setInArray(root, old.Array(), vars)
		if err != nil {
			return nil, err
		}
		return bsoncore.AppendArrayElement(out, k, a), nil
	}
	sub, err := c.sub.setFields(root, emptyDoc, vars)
	if err != nil {
		return nil, err
	}
	return bsoncore.AppendDocumentElement(out, k, sub), nil
}

// setInArray sets n's fields in each element of an array a path runs
// through, as mongod's projection applies to arrays: a document gets
// them, a nested array is walked the same way (its structure kept), and
// any other value is replaced by a document of them.
func (n *pnode) setInArray(root bsoncore.Document, arr bsoncore.Array, vars *expr.Vars) (bsoncore.Array, error) {
	aidx, a := bsoncore.AppendArrayStart(nil)
	vals, _ := arr.Values()
	for i, v := range vals {
		if v.Type == bsoncore.TypeArray {
			nested, err := n.setInArray(root, v.Array(), vars)
			if err != nil {
				return nil, err
			}
			a = bsoncore.AppendArrayElement(a, itoa(i), nested)
			continue
		}
		base := emptyDoc
		if v.Type == bsoncore.TypeEmbeddedDocument {
			base = v.Document()
		}
		sub, err := n.setFields(root, base, vars)
		if err != nil {
			return nil, err
		}
		a = bsoncore.AppendDocumentElement(a, itoa(i), sub)
	}
	a, _ = bsoncore.AppendArrayEnd(a, aidx)
	return a, nil
}
