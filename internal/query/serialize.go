package query

import (
	"cmp"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// matchType is mongod 7.0's MatchExpression::MatchType, in its order: the
// normal form sorts the children of $and, $or, $nor and the value form of
// $elemMatch by it.
type matchType int

const (
	mtAnd matchType = iota
	mtOr
	mtElemMatchObject
	mtElemMatchValue
	mtSize
	mtEQ
	mtLTE
	mtLT
	mtGT
	mtGTE
	mtRegex
	mtMod
	mtExists
	mtIn
	mtBitsAllSet
	mtBitsAllClear
	mtBitsAnySet
	mtBitsAnyClear
	mtNot
	mtNor
	mtType
	mtGeo
	mtWhere
	mtExpr
	mtAlwaysFalse
	mtAlwaysTrue
	mtJSONSchema
	mtText
)

// Serialize returns the filter in the normal form mongod prints as
// explain's parsedQuery and stage filters: the match tree optimized and
// sorted as mongod's CanonicalQuery does (see normalize), then each node
// serialized as its MatchExpression::serialize does. A nil filter and the
// empty filter are {}.
func (f *Filter) Serialize() bsoncore.Document {
	if f == nil {
		return bsoncore.Document(emptyDoc)
	}
	b := bsoncore.NewDocumentBuilder()
	normalize(f.root).serialize(b, true)
	return b.Build()
}

// normalize returns n as mongod's MatchExpression::optimize and sortTree
// leave it, without changing n (the result shares n's leaves):
//   - $and and $or absorb children of their own kind ($all is the $and of
//     its predicates); $and drops $alwaysTrue children and is
//     $alwaysFalse with one, $or the reverse; a $or left empty is
//     $alwaysFalse; one child stands for its $and or $or;
//   - a $nor of one child is the $not of it;
//   - a $in of one value is $eq, of one regex the regex;
//   - the children of $and, $or, $nor and value $elemMatch are sorted by
//     kind, then path, then children (mongod's matchExpressionComparator;
//     equal ones keep their order).
func normalize(n Node) Node {
	switch t := n.(type) {
	case *AndNode:
		return normalizeList(mtAnd, t.Children)
	case *AllNode:
		if len(t.Nodes) == 0 {
			return &BoolNode{Value: false}
		}
		return normalizeList(mtAnd, t.Nodes)
	case *OrNode:
		return normalizeList(mtOr, t.Children)
	case *NorNode:
		kids := normalizeKids(t.Children)
		if len(kids) == 1 {
			return &NotNode{Child: kids[0]}
		}
		sortNodes(kids)
		return &NorNode{Children: kids}
	case *NotNode:
		return &NotNode{Child: normalize(t.Child)}
	case *InNode:
		switch {
		case len(t.Values) == 1 && len(t.Regexes) == 0:
			return &CompareNode{pathed: t.pathed, Op: OpEQ, Value: t.Values[0]}
		case len(t.Values) == 0 && len(t.Regexes) == 1:
			r := *t.Regexes[0]
			r.pathed = t.pathed
			return &r
		}
	case *ElemMatchObjectNode:
		return &ElemMatchObjectNode{pathed: t.pathed, Sub: normalize(t.Sub)}
	case *ElemMatchValueNode:
		preds := normalizeKids(t.Preds)
		sortNodes(preds)
		return &ElemMatchValueNode{pathed: t.pathed, Preds: preds}
	}
	return n
}

func normalizeKids(kids []Node) []Node {
	out := make([]Node, len(kids))
	for i, k := range kids {
		out[i] = normalize(k)
	}
	return out
}

// normalizeList normalizes the children of a $and (kind mtAnd) or $or.
func normalizeList(kind matchType, kids []Node) Node {
	var flat []Node
	for _, k := range normalizeKids(kids) {
		switch {
		case k.kind() == kind:
			flat = append(flat, children(k)...)
		case kind == mtAnd && isAlways(k, true), kind == mtOr && isAlways(k, false):
		default:
			flat = append(flat, k)
		}
	}
	if kind == mtOr && len(flat) == 0 {
		return &BoolNode{Value: false}
	}
	if len(flat) == 1 {
		return flat[0]
	}
	for _, k := range flat {
		if kind == mtAnd && isAlways(k, false) {
			return &BoolNode{Value: false}
		}
		if kind == mtOr && isAlways(k, true) {
			return &BoolNode{Value: true}
		}
	}
	sortNodes(flat)
	if kind == mtAnd {
		return &AndNode{Children: flat}
	}
	return newOr(flat)
}

// isAlways reports whether n is trivially v: $alwaysTrue and the empty
// $and are true, $alwaysFalse and the empty $or false.
func isAlways(n Node, v bool) bool {
	switch t := n.(type) {
	case *BoolNode:
		return t.Value == v
	case *AndNode:
		return v && len(t.Children) == 0
	case *OrNode:
		return !v && len(t.Children) == 0
	}
	return false
}

func sortNodes(kids []Node) { slices.SortStableFunc(kids, compareNodes) }

// compareNodes is mongod's matchExpressionComparator: kind, then path,
// then the children in turn, then the number of children.
func compareNodes(a, b Node) int {
	if c := cmp.Compare(a.kind(), b.kind()); c != 0 {
		return c
	}
	if c := strings.Compare(pathOf(a), pathOf(b)); c != 0 {
		return c
	}
	ka, kb := children(a), children(b)
	for i := 0; i < len(ka) && i < len(kb); i++ {
		if c := compareNodes(ka[i], kb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ka), len(kb))
}

// pathOf is a node's path ("" for the logical nodes).
func pathOf(n Node) string {
	if p, ok := n.(pathNode); ok {
		return p.path()
	}
	return ""
}

// children are a node's children as mongod's getChild sees them.
func children(n Node) []Node {
	switch t := n.(type) {
	case *AndNode:
		return t.Children
	case *OrNode:
		return t.Children
	case *NorNode:
		return t.Children
	case *AllNode:
		return t.Nodes
	case *NotNode:
		return []Node{t.Child}
	case *ElemMatchObjectNode:
		return []Node{t.Sub}
	case *ElemMatchValueNode:
		return t.Preds
	}
	return nil
}

// pathNode is a predicate on a path (mongod's PathMatchExpression): it
// serializes as {path: <right-hand side>}.
type pathNode interface {
	Node
	path() string
	// appendRHS appends the right-hand side's fields, such as $gt: 5.
	appendRHS(b *bsoncore.DocumentBuilder)
}

func (p pathed) path() string { return p.Path }

// serializePath appends n as {path: {rhs}}, or only the rhs fields when
// includePath is unset (inside the value form of $elemMatch).
func serializePath(n pathNode, b *bsoncore.DocumentBuilder, includePath bool) {
	if !includePath {
		n.appendRHS(b)
		return
	}
	b.AppendDocument(n.path(), rhsDoc(n))
}

func rhsDoc(n pathNode) bsoncore.Document {
	rb := bsoncore.NewDocumentBuilder()
	n.appendRHS(rb)
	return rb.Build()
}

func serializeList(b *bsoncore.DocumentBuilder, op string, kids []Node) {
	ab := bsoncore.NewArrayBuilder()
	for _, k := range kids {
		kb := bsoncore.NewDocumentBuilder()
		k.serialize(kb, true)
		ab.AppendDocument(kb.Build())
	}
	b.AppendArray(op, ab.Build())
}

func (n *AndNode) kind() matchType { return mtAnd }

// serialize appends {$and: [...]}; the empty $and (the empty filter)
// appends nothing.
func (n *AndNode) serialize(b *bsoncore.DocumentBuilder, _ bool) {
	if len(n.Children) > 0 {
		serializeList(b, "$and", n.Children)
	}
}

func (n *OrNode) kind() matchType { return mtOr }

func (n *OrNode) serialize(b *bsoncore.DocumentBuilder, _ bool) {
	if len(n.Children) == 0 {
		b.AppendInt32("$alwaysFalse", 1)
		return
	}
	serializeList(b, "$or", n.Children)
}

func (n *NorNode) kind() matchType { return mtNor }

func (n *NorNode) serialize(b *bsoncore.DocumentBuilder, _ bool) {
	serializeList(b, "$nor", n.Children)
}

// kind is $and's: $all is the $and of its predicates.
func (n *AllNode) kind() matchType { return mtAnd }

func (n *AllNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	normalize(n).serialize(b, includePath)
}

func (n *NotNode) kind() matchType { return mtNot }

// serialize appends {path: {$not: rhs}} when the negated node is a path
// predicate, {$nor: [child]} otherwise, and {$not: {rhs...}} inside the
// value form of $elemMatch (includePath unset).
func (n *NotNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	and, isAnd := n.Child.(*AndNode)
	if isAnd && len(and.Children) == 0 {
		b.AppendInt32("$alwaysFalse", 1)
		return
	}
	if !includePath {
		nb := bsoncore.NewDocumentBuilder()
		if isAnd {
			for _, k := range and.Children {
				k.serialize(nb, false)
			}
		} else {
			n.Child.serialize(nb, false)
		}
		b.AppendDocument("$not", nb.Build())
		return
	}
	neg := n.Child
	if isAnd && len(and.Children) == 1 {
		neg = and.Children[0]
	}
	if p, ok := neg.(pathNode); ok {
		b.AppendDocument(p.path(), bsoncore.NewDocumentBuilder().AppendDocument("$not", rhsDoc(p)).Build())
		return
	}
	serializeList(b, "$nor", []Node{neg})
}

func (n *BoolNode) kind() matchType {
	if n.Value {
		return mtAlwaysTrue
	}
	return mtAlwaysFalse
}

func (n *BoolNode) serialize(b *bsoncore.DocumentBuilder, _ bool) {
	if n.Value {
		b.AppendInt32("$alwaysTrue", 1)
	} else {
		b.AppendInt32("$alwaysFalse", 1)
	}
}

func (n *ExprNode) kind() matchType { return mtExpr }

// serialize appends {$expr: <the expression as given>} (mongod prints the
// optimized expression).
func (n *ExprNode) serialize(b *bsoncore.DocumentBuilder, _ bool) {
	b.AppendValue("$expr", n.Expr)
}

func (n *CompareNode) kind() matchType {
	return [...]matchType{OpEQ: mtEQ, OpLT: mtLT, OpLTE: mtLTE, OpGT: mtGT, OpGTE: mtGTE}[n.Op]
}

func (n *CompareNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

func (n *CompareNode) appendRHS(b *bsoncore.DocumentBuilder) {
	b.AppendValue(n.Op.String(), n.operand())
}

// operand is the comparison's operand as the user gave it.
func (n *CompareNode) operand() bsoncore.Value {
	if n.coll != nil {
		return n.Orig
	}
	return n.Value
}

func (n *InNode) kind() matchType { return mtIn }

func (n *InNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

// appendRHS appends $in: the values in order, then the regexes.
func (n *InNode) appendRHS(b *bsoncore.DocumentBuilder) {
	ab := bsoncore.NewArrayBuilder()
	vals := n.Values
	if n.coll != nil {
		vals = n.Orig
	}
	for _, v := range vals {
		ab.AppendValue(v)
	}
	for _, r := range n.Regexes {
		ab.AppendRegex(r.Pattern, r.Options)
	}
	b.AppendArray("$in", ab.Build())
}

func (n *RegexNode) kind() matchType { return mtRegex }

func (n *RegexNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

func (n *RegexNode) appendRHS(b *bsoncore.DocumentBuilder) {
	b.AppendString("$regex", n.Pattern)
	if n.Options != "" {
		b.AppendString("$options", n.Options)
	}
}

func (n *ExistsNode) kind() matchType { return mtExists }

func (n *ExistsNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

func (n *ExistsNode) appendRHS(b *bsoncore.DocumentBuilder) { b.AppendBoolean("$exists", true) }

func (n *TypeNode) kind() matchType { return mtType }

func (n *TypeNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

// appendRHS appends $type as mongod's type set: "number" first when
// given, then the distinct type codes in numeric order (minKey, -1,
// first).
func (n *TypeNode) appendRHS(b *bsoncore.DocumentBuilder) {
	ab := bsoncore.NewArrayBuilder()
	if n.Number {
		ab.AppendString("number")
	}
	codes := make([]int32, 0, len(n.Types))
	for _, t := range n.Types {
		codes = append(codes, int32(int8(t)))
	}
	slices.Sort(codes)
	for _, c := range slices.Compact(codes) {
		ab.AppendInt32(c)
	}
	b.AppendArray("$type", ab.Build())
}

func (n *SizeNode) kind() matchType { return mtSize }

func (n *SizeNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

func (n *SizeNode) appendRHS(b *bsoncore.DocumentBuilder) { b.AppendInt32("$size", int32(n.Size)) }

func (n *ModNode) kind() matchType { return mtMod }

func (n *ModNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

func (n *ModNode) appendRHS(b *bsoncore.DocumentBuilder) {
	b.AppendArray("$mod", bsoncore.NewArrayBuilder().AppendInt64(n.Divisor).AppendInt64(n.Remainder).Build())
}

func (n *BitsNode) kind() matchType {
	return [...]matchType{BitsAllSet: mtBitsAllSet, BitsAnySet: mtBitsAnySet,
		BitsAllClear: mtBitsAllClear, BitsAnyClear: mtBitsAnyClear}[n.Op]
}

func (n *BitsNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

// appendRHS appends the operator with the bit positions as int32s.
func (n *BitsNode) appendRHS(b *bsoncore.DocumentBuilder) {
	ab := bsoncore.NewArrayBuilder()
	for _, p := range n.Positions {
		ab.AppendInt32(int32(p))
	}
	b.AppendArray(n.Op.String(), ab.Build())
}

func (n *ElemMatchObjectNode) kind() matchType { return mtElemMatchObject }

func (n *ElemMatchObjectNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

func (n *ElemMatchObjectNode) appendRHS(b *bsoncore.DocumentBuilder) {
	sb := bsoncore.NewDocumentBuilder()
	n.Sub.serialize(sb, true)
	b.AppendDocument("$elemMatch", sb.Build())
}

func (n *ElemMatchValueNode) kind() matchType { return mtElemMatchValue }

func (n *ElemMatchValueNode) serialize(b *bsoncore.DocumentBuilder, includePath bool) {
	serializePath(n, b, includePath)
}

// appendRHS appends $elemMatch with the predicates' right-hand sides.
func (n *ElemMatchValueNode) appendRHS(b *bsoncore.DocumentBuilder) {
	eb := bsoncore.NewDocumentBuilder()
	for _, p := range n.Preds {
		p.serialize(eb, false)
	}
	b.AppendDocument("$elemMatch", eb.Build())
}
