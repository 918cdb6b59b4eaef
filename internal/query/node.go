package query

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Node is one node of a parsed match tree. The concrete types are the
// exported *...Node types of this package; callers such as the planner
// inspect them with a type switch. Every node can test a whole document
// (the predicate applied to the document, following its path) and a single
// value (the predicate applied directly to a value, as inside the value
// form of $elemMatch).
type Node interface {
	// match tests a document; pos, when not nil, receives the offset of
	// the array element that made a path predicate match.
	match(doc []byte, pos *int) bool
	// matchValue tests a single value with no path traversal.
	matchValue(v bsoncore.Value, pos *int) bool
	// kind is the node's MatchType in mongod's order (serialize.go).
	kind() matchType
	// serialize appends the node as mongod's MatchExpression::serialize
	// does ({a: {$gt: 1}}, {$or: [...]}); without includePath a path
	// predicate appends only its right-hand side ($gt: 1), as inside the
	// value form of $elemMatch.
	serialize(b *bsoncore.DocumentBuilder, includePath bool)
}

// Op is a comparison operator of a CompareNode.
type Op int

// Comparison operators. $ne is represented as a NotNode over OpEQ, as
// MongoDB does.
const (
	OpEQ Op = iota
	OpLT
	OpLTE
	OpGT
	OpGTE
)

// String returns the operator's MongoDB name, such as "$gte".
func (o Op) String() string {
	switch o {
	case OpEQ:
		return "$eq"
	case OpLT:
		return "$lt"
	case OpLTE:
		return "$lte"
	case OpGT:
		return "$gt"
	case OpGTE:
		return "$gte"
	}
	return "$?"
}

// pathed holds a predicate's dotted path and its pre-split components.
type pathed struct {
	// Path is the dotted field path the predicate applies to. It is empty
	// for predicates inside the value form of $elemMatch.
	Path  string
	parts []string
}

func newPathed(p string) pathed { return pathed{Path: p, parts: splitPath(p)} }

// AndNode matches when all children match. An AndNode with no children
// matches every document (the empty filter).
type AndNode struct {
	Children []Node
}

// OrNode matches when any child matches.
type OrNode struct {
	Children []Node
	// inLike: the $or is one $in to mongod (one child, or equalities and
	// regexes on one path, which its optimizer merges), so it records the
	// matched array position for a positional projection; any other $or
	// records none ({$or: [{a: 1}, {b: 5}]} leaves "a.$" nothing).
	inLike bool
}

// newOr returns the $or of kids.
func newOr(kids []Node) *OrNode {
	return &OrNode{Children: kids, inLike: orInLike(kids)}
}

func orInLike(kids []Node) bool {
	if len(kids) == 1 {
		return true
	}
	path := ""
	for i, k := range kids {
		var p string
		switch t := k.(type) {
		case *CompareNode:
			if t.Op != OpEQ {
				return false
			}
			p = t.Path
		case *RegexNode:
			p = t.Path
		case *InNode:
			p = t.Path
		default:
			return false
		}
		if i > 0 && p != path {
			return false
		}
		path = p
	}
	return true
}

// NorNode matches when no child matches.
type NorNode struct {
	Children []Node
}

// NotNode negates its child. $ne, $nin and $exists:false parse to a NotNode
// over $eq, $in and $exists:true respectively, as in MongoDB.
type NotNode struct {
	Child Node
}

// BoolNode matches every document (Value true, $alwaysTrue) or none
// (Value false, $alwaysFalse).
type BoolNode struct {
	Value bool
}

func (n *AndNode) match(doc []byte, pos *int) bool {
	// Comparisons on one top-level field ({t: {$gte: a, $lt: b}}) look
	// the field up once; a scalar value is compared directly (an array
	// or a missing field takes the general path walk).
	var lastName string
	var last bsoncore.Value
	for _, c := range n.Children {
		if cn, ok := c.(*CompareNode); ok && len(cn.parts) == 1 {
			if lastName == "" || lastName != cn.parts[0] {
				lastName, last = cn.parts[0], lookupField(doc, cn.parts[0])
			}
			if last.Type != 0 && last.Type != bsoncore.TypeArray {
				lv := last
				if cn.coll != nil {
					lv = cn.coll.Transform(last)
				}
				if !compareMatches(cn.Op, lv, cn.Value) {
					if pos != nil {
						*pos = -1
					}
					return false
				}
				continue
			}
		}
		if !c.match(doc, pos) {
			if pos != nil {
				*pos = -1
			}
			return false
		}
	}
	return true
}

func (n *AndNode) matchValue(v bsoncore.Value, pos *int) bool {
	for _, c := range n.Children {
		if !c.matchValue(v, pos) {
			return false
		}
	}
	return true
}

func (n *OrNode) match(doc []byte, pos *int) bool {
	if !n.inLike {
		pos = nil
	} else if pos != nil && len(n.Children) > 1 {
		// As mongod's $in: the first array element any child matches.
		return n.matchFirst(func(c Node, p *int) bool { return c.match(doc, p) }, pos)
	}
	for _, c := range n.Children {
		if c.match(doc, pos) {
			return true
		}
	}
	return false
}

func (n *OrNode) matchValue(v bsoncore.Value, pos *int) bool {
	if !n.inLike {
		pos = nil
	} else if pos != nil && len(n.Children) > 1 {
		return n.matchFirst(func(c Node, p *int) bool { return c.matchValue(v, p) }, pos)
	}
	for _, c := range n.Children {
		if c.matchValue(v, pos) {
			return true
		}
	}
	return false
}

// matchFirst runs every child of an in-like $or and records the lowest
// array position any of them matched at.
func (n *OrNode) matchFirst(m func(Node, *int) bool, pos *int) bool {
	found, best := false, -1
	for _, c := range n.Children {
		p := -1
		if m(c, &p) {
			if !found || (p >= 0 && (best < 0 || p < best)) {
				best = p
			}
			found = true
		}
	}
	if found && best >= 0 {
		*pos = best
	}
	return found
}

func (n *NorNode) match(doc []byte, _ *int) bool {
	for _, c := range n.Children {
		if c.match(doc, nil) {
			return false
		}
	}
	return true
}

func (n *NorNode) matchValue(v bsoncore.Value, _ *int) bool {
	for _, c := range n.Children {
		if c.matchValue(v, nil) {
			return false
		}
	}
	return true
}

func (n *NotNode) match(doc []byte, _ *int) bool { return !n.Child.match(doc, nil) }

func (n *NotNode) matchValue(v bsoncore.Value, _ *int) bool { return !n.Child.matchValue(v, nil) }

func (n *BoolNode) match([]byte, *int) bool { return n.Value }

func (n *BoolNode) matchValue(bsoncore.Value, *int) bool { return n.Value }
