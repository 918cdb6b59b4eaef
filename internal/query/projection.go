package query

import (
	"context"
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Projection is a parsed find projection.
type Projection struct {
	root      *projNode
	inclusion bool
	// positional is the path before ".$" of a positional projection.
	positional []string
	posPath    string
	slices     []sliceSpec
	elemMatch  []elemMatchSpec
	empty      bool
	// metas are the fields set to {$meta: "textScore"} (projection_meta.go).
	metas []string
	// exprVars are the bindings of the computed fields' expressions.
	exprVars []*expr.Vars
}

// SetContext makes the computed fields' expressions stop their long
// loops once ctx ends (expr.Vars.SetContext). A projection evaluates on
// one goroutine.
func (p *Projection) SetContext(ctx context.Context) {
	if p == nil {
		return
	}
	for _, v := range p.exprVars {
		v.SetContext(ctx)
	}
}

type projKind int

const (
	projInternal projKind = iota
	projInclude
	projExclude
	projComputed
	projSlice
	projElemMatch
)

// projNode is a node of the projection path tree.
type projNode struct {
	kind        projKind
	order       []string
	kids        map[string]*projNode
	expr        exprFunc
	hasComputed bool
}

type sliceSpec struct {
	parts []string
	skip  *int
	limit int
}

type elemMatchSpec struct {
	field string
	node  Node
}

// ParseProjection parses a find projection: inclusion ({a: 1}), exclusion
// ({a: 0}), _id handling, dotted paths, $slice, $elemMatch, the positional
// "field.$" and computed fields (literals and expressions, e.g. {a: "x"}
// or {a: {$literal: 1}}). Errors carry MongoDB's codes.
func ParseProjection(spec bsoncore.Document) (*Projection, error) {
	if err := validateDoc(spec); err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid projection document: %v", err)
	}
	elems, err := spec.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid projection document: %v", err)
	}
	p := &Projection{root: &projNode{kind: projInternal}}
	if len(elems) == 0 {
		p.empty = true
		return p, nil
	}
	var typ int // 0 unknown, 1 inclusion, 2 exclusion
	idSpecified := false
	hasSlice, hasElemMatch := false, false
	for _, e := range elems {
		key, v := e.Key(), e.Value()
		if key == "_id" || strings.HasPrefix(key, "_id.") {
			idSpecified = true
		}
		posBegin, posEnd, hasPos := findPositional(key)
		if v.Type == bsoncore.TypeEmbeddedDocument && !isNestedSpec(v) {
			if hasPos {
				return nil, errs.New(errs.Location31271, "positional projection cannot be used with an expression")
			}
			if err := checkPath(key); err != nil {
				return nil, err
			}
			fk, arg, _ := firstKey(v)
			switch fk {
			case "$slice":
				s, err := parseSlice(arg)
				if err != nil {
					return nil, err
				}
				s.parts = splitPath(key)
				if err := p.add(key, &projNode{kind: projSlice}); err != nil {
					return nil, err
				}
				p.slices = append(p.slices, s)
				hasSlice = true
			case "$elemMatch":
				if arg.Type != bsoncore.TypeEmbeddedDocument {
					return nil, errs.New(errs.Location31274, "elemMatch: Invalid argument, object required, but got %s", bsonutil.TypeName(arg.Type))
				}
				if p.positional != nil {
					return nil, errs.New(errs.Location31255, "Cannot specify positional operator and $elemMatch.")
				}
				if strings.Contains(key, ".") {
					return nil, errs.New(errs.Location31275, "Cannot use $elemMatch projection on a nested field.")
				}
				pr := &parser{}
				n, err := pr.parseElemMatch("", arg)
				if err != nil {
					return nil, err
				}
				if err := p.add(key, &projNode{kind: projElemMatch}); err != nil {
					return nil, err
				}
				p.elemMatch = append(p.elemMatch, elemMatchSpec{field: key, node: n})
				hasElemMatch = true
			case "$meta":
				if err := p.addMeta(key, arg); err != nil {
					return nil, err
				}
			default:
				if typ == 2 {
					return nil, errs.New(errs.Location31252, "Cannot use expression other than $meta in exclusion projection")
				}
				typ = 1
				f, vars, err := compileExpr(v)
				if err != nil {
					return nil, err
				}
				p.exprVars = append(p.exprVars, vars)
				if err := p.add(key, &projNode{kind: projComputed, expr: f}); err != nil {
					return nil, err
				}
			}
			continue
		}
		if v.Type == bsoncore.TypeEmbeddedDocument {
			// nested projection {a: {b: 1}} is {"a.b": 1}
			if err := p.flattenNested(key, v, &typ, &idSpecified); err != nil {
				return nil, err
			}
			continue
		}
		if !isNumber(v) && v.Type != bsoncore.TypeBoolean {
			// a literal or "$path" value: a computed field
			if hasPos {
				return nil, errs.New(errs.Location31271, "positional projection cannot be used with an expression")
			}
			if typ == 2 {
				return nil, errs.New(errs.Location31252, "Cannot use expression other than $meta in exclusion projection")
			}
			typ = 1
			if err := checkPath(key); err != nil {
				return nil, err
			}
			f, vars, err := compileExpr(v)
			if err != nil {
				return nil, err
			}
			p.exprVars = append(p.exprVars, vars)
			if err := p.add(key, &projNode{kind: projComputed, expr: f}); err != nil {
				return nil, err
			}
			continue
		}
		if trueValue(v) {
			path := key
			if hasPos {
				if p.positional != nil {
					return nil, errs.New(errs.Location31276, "Cannot specify more than one positional projection per query.")
				}
				if hasElemMatch {
					return nil, errs.New(errs.Location31256, "Cannot specify positional operator and $elemMatch.")
				}
				if strings.HasSuffix(key, ".$.") {
					return nil, errs.New(errs.Location31270, "Path cannot end with '.$.'")
				}
				if _, _, again := findPositional(key[posEnd:]); again {
					return nil, errs.New(errs.Location31287, "Cannot use positional operator twice: %s", key)
				}
				path = key[:posBegin]
				if path == "" && key != "$" {
					// ".$": a positional operator after an empty field.
					return nil, errs.New(errs.Code(5392900), "Projection on field %s is invalid", key)
				}
				if path == "" {
					return nil, errs.New(errs.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
				}
				p.positional = splitPath(path)
				p.posPath = path
			}
			if err := checkPath(path); err != nil {
				return nil, err
			}
			if err := p.add(path, &projNode{kind: projInclude}); err != nil {
				return nil, err
			}
			if typ == 2 {
				return nil, errs.New(errs.Location31253, "Cannot do inclusion on field %s in exclusion projection", key)
			}
			typ = 1
			continue
		}
		if err := checkPath(key); err != nil {
			return nil, err
		}
		if err := p.add(key, &projNode{kind: projExclude}); err != nil {
			return nil, err
		}
		if key != "_id" {
			if typ == 1 {
				return nil, errs.New(errs.Location31254, "Cannot do exclusion on field %s in inclusion projection", key)
			}
			typ = 2
		}
	}
	if typ == 0 {
		typ = 2
		if !hasSlice && hasElemMatch {
			typ = 1
		}
	}
	p.inclusion = typ == 1
	if !idSpecified && p.inclusion {
		if err := p.add("_id", &projNode{kind: projInclude}); err != nil {
			return nil, err
		}
	}
	markComputed(p.root)
	return p, nil
}

// flattenNested parses {a: {b: 1, c: 0}} as the dotted paths "a.b", "a.c".
func (p *Projection) flattenNested(prefix string, v bsoncore.Value, typ *int, idSpecified *bool) error {
	elems, _ := v.Document().Elements()
	if len(elems) == 0 {
		return errs.New(errs.Location51270, "An empty sub-projection is not a valid value. Found empty object at path")
	}
	_ = idSpecified
	// Parse each flattened element alone and merge it into p.
	for _, e := range elems {
		idx, one := bsoncore.AppendDocumentStart(nil)
		one = bsoncore.AppendValueElement(one, prefix+"."+e.Key(), e.Value())
		one, _ = bsoncore.AppendDocumentEnd(one, idx)
		q, err := ParseProjection(one)
		if err != nil {
			return err
		}
		if err := p.merge(q, prefix+"."+e.Key(), typ); err != nil {
			return err
		}
	}
	return nil
}

// merge adds the single path of a one-field projection q into p.
func (p *Projection) merge(q *Projection, key string, typ *int) error {
	p.exprVars = append(p.exprVars, q.exprVars...)
	n := q.root
	if q.positional != nil {
		key = q.posPath
	}
	for _, part := range splitPath(key) {
		n = n.kids[part]
	}
	switch n.kind {
	case projInclude, projComputed:
		if *typ == 2 {
			if n.kind == projComputed {
				return errs.New(errs.Location31252, "Cannot use expression other than $meta in exclusion projection")
			}
			return errs.New(errs.Location31253, "Cannot do inclusion on field %s in exclusion projection", key)
		}
		*typ = 1
	case projExclude:
		if *typ == 1 {
			return errs.New(errs.Location31254, "Cannot do exclusion on field %s in inclusion projection", key)
		}
		*typ = 2
	}
	p.slices = append(p.slices, q.slices...)
	p.elemMatch = append(p.elemMatch, q.elemMatch...)
	if q.positional != nil {
		if p.positional != nil {
			return errs.New(errs.Location31276, "Cannot specify more than one positional projection per query.")
		}
		p.positional, p.posPath = q.positional, q.posPath
	}
	return p.add(key, n)
}

// isNestedSpec reports whether an object value is a nested projection
// (its first field does not start with '$').
func isNestedSpec(v bsoncore.Value) bool {
	k, _, ok := firstKey(v)
	return !ok || !strings.HasPrefix(k, "$")
}

// findPositional locates the first positional operator in a projection
// path: ".$." inside, ".$" at the end, or the whole path "$".
func findPositional(path string) (begin, end int, ok bool) {
	if i := strings.Index(path, ".$."); i >= 0 {
		return i, i + 3, true
	}
	if strings.HasSuffix(path, ".$") {
		return len(path) - 2, len(path), true
	}
	if path == "$" {
		return 0, 1, true
	}
	return 0, 0, false
}

// checkPath validates a projection field path.
func checkPath(path string) error {
	if path == "" {
		return errs.New(errs.Location40352, "FieldPath cannot be constructed with empty string")
	}
	for _, part := range strings.Split(path, ".") {
		if part == "" {
			return errs.New(errs.Location15998, "FieldPath field names may not be empty strings.")
		}
		if strings.HasPrefix(part, "$") {
			return errs.New(errs.Location16410, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
	}
	return nil
}

// add inserts a leaf at path, reporting MongoDB's path collisions.
func (p *Projection) add(path string, leaf *projNode) error {
	parts := splitPath(path)
	n := p.root
	for i, part := range parts {
		if n.kids == nil {
			n.kids = map[string]*projNode{}
		}
		c := n.kids[part]
		if i == len(parts)-1 {
			if c != nil {
				return errs.New(errs.Location31250, "Path collision at %s", path)
			}
			n.kids[part] = leaf
			n.order = append(n.order, part)
			return nil
		}
		if c == nil {
			c = &projNode{kind: projInternal}
			n.kids[part] = c
			n.order = append(n.order, part)
		} else if c.kind != projInternal {
			return errs.New(errs.Location31249, "Path collision at %s remaining portion %s", path, strings.Join(parts[1:], "."))
		}
		n = c
	}
	return nil
}

// markComputed flags internal nodes that have computed descendants.
func markComputed(n *projNode) bool {
	has := false
	for _, c := range n.kids {
		if c.kind == projComputed || (c.kind == projInternal && markComputed(c)) {
			has = true
		}
	}
	n.hasComputed = has
	return has
}

func parseSlice(arg bsoncore.Value) (sliceSpec, error) {
	if isNumber(arg) {
		return sliceSpec{limit: numberInt(arg)}, nil
	}
	if arg.Type != bsoncore.TypeArray {
		return sliceSpec{}, errs.New(errs.Location31273, "$slice only supports numbers and [skip, limit] arrays")
	}
	vals, _ := arg.Array().Values()
	if len(vals) != 2 {
		return sliceSpec{}, errs.New(errs.Location31272, "$slice array argument should be of form [skip, limit]")
	}
	if !isNumber(vals[0]) {
		return sliceSpec{}, errs.New(errs.Location31257, "$slice expects the skip argument to be a number, got %s", bsonutil.TypeName(vals[0].Type))
	}
	if !isNumber(vals[1]) {
		return sliceSpec{}, errs.New(errs.Location31258, "$slice expects the limit argument to be a number, got %s", bsonutil.TypeName(vals[1].Type))
	}
	limit := numberInt(vals[1])
	if limit <= 0 {
		return sliceSpec{}, errs.New(errs.Location31259, "$slice limit must be positive, got %d", limit)
	}
	skip := numberInt(vals[0])
	return sliceSpec{skip: &skip, limit: limit}, nil
}

// numberInt is MongoDB's BSONElement::numberInt: truncation, saturating
// doubles.
func numberInt(v bsoncore.Value) int {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int(v.Int32())
	case bsoncore.TypeInt64:
		return int(int32(v.Int64()))
	}
	f := bsonutilFloat(v)
	switch {
	case f != f:
		return 0
	case f >= 2147483647:
		return 2147483647
	case f <= -2147483648:
		return -2147483648
	}
	return int(f)
}

// Positional returns the path of a positional projection ("a" for
// {"a.$": 1}) and whether there is one.
func (p *Projection) Positional() (string, bool) { return p.posPath, p.positional != nil }

// CheckFilter validates the projection against the query filter: a
// positional projection needs a predicate on its array field (31277).
func (p *Projection) CheckFilter(f *Filter) error {
	if p.positional == nil {
		return nil
	}
	field := p.positional[0]
	if f == nil || !hasPathPrefix(f.root, field) {
		return errs.New(errs.Location31277, "Positional projection '%s.$' does not match the query document.", p.posPath)
	}
	return nil
}

func hasPathPrefix(n Node, field string) bool {
	switch t := n.(type) {
	case *AndNode:
		for _, c := range t.Children {
			if hasPathPrefix(c, field) {
				return true
			}
		}
	case *OrNode:
		for _, c := range t.Children {
			if hasPathPrefix(c, field) {
				return true
			}
		}
	case *NorNode:
		for _, c := range t.Children {
			if hasPathPrefix(c, field) {
				return true
			}
		}
	case *NotNode:
		return hasPathPrefix(t.Child, field)
	default:
		if path, ok := NodePath(n); ok {
			return strings.SplitN(path, ".", 2)[0] == field
		}
	}
	return false
}

// NodePath returns the dotted path of a path predicate node (every node
// type but AndNode, OrNode, NorNode, NotNode, BoolNode and ExprNode) and
// whether n has one.
func NodePath(n Node) (string, bool) {
	switch t := n.(type) {
	case *CompareNode:
		return t.Path, true
	case *InNode:
		return t.Path, true
	case *ExistsNode:
		return t.Path, true
	case *TypeNode:
		return t.Path, true
	case *SizeNode:
		return t.Path, true
	case *ModNode:
		return t.Path, true
	case *GeoNode:
		return t.Path, true
	case *NearNode:
		return t.Path, true
	case *BitsNode:
		return t.Path, true
	case *RegexNode:
		return t.Path, true
	case *ElemMatchObjectNode:
		return t.Path, true
	case *ElemMatchValueNode:
		return t.Path, true
	case *AllNode:
		return t.Path, true
	}
	return "", false
}
