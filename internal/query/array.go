package query

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ElemMatchObjectNode is {Path: {$elemMatch: {<filter>}}} in its query
// form: the value at the path is an array with an element that is a
// document (or array) matching Sub. Sub's paths are relative to the
// element.
type ElemMatchObjectNode struct {
	pathed
	Sub Node
}

// ElemMatchValueNode is {Path: {$elemMatch: {$gt: 1, $lt: 5}}} in its value
// form: the value at the path is an array with an element that satisfies
// all Preds at once. Preds have an empty Path and test the element itself.
type ElemMatchValueNode struct {
	pathed
	Preds []Node
}

// AllNode is {Path: {$all: [...]}}: every node of Nodes matches. Nodes are
// $eq CompareNodes, RegexNodes, or ElemMatch nodes for $all of $elemMatch,
// all on Path. An AllNode with no nodes ($all: []) matches nothing.
type AllNode struct {
	pathed
	Nodes []Node
}

func (n *ElemMatchObjectNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, false, n, pos, -1)
}

func (n *ElemMatchObjectNode) matchValue(v bsoncore.Value, pos *int) bool {
	if v.Type != bsoncore.TypeArray {
		return false
	}
	it := newElemIter(v.Data)
	for k := 0; ; k++ {
		_, e, ok := it.next()
		if !ok {
			return false
		}
		if e.Type != bsoncore.TypeEmbeddedDocument && e.Type != bsoncore.TypeArray {
			continue
		}
		if n.Sub.match(e.Data, nil) {
			if pos != nil {
				*pos = k
			}
			return true
		}
	}
}

func (n *ElemMatchValueNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, false, n, pos, -1)
}

func (n *ElemMatchValueNode) matchValue(v bsoncore.Value, pos *int) bool {
	if v.Type != bsoncore.TypeArray {
		return false
	}
	it := newElemIter(v.Data)
	for k := 0; ; k++ {
		_, e, ok := it.next()
		if !ok {
			return false
		}
		all := true
		for _, p := range n.Preds {
			if !p.matchValue(e, nil) {
				all = false
				break
			}
		}
		if all {
			if pos != nil {
				*pos = k
			}
			return true
		}
	}
}

func (n *AllNode) match(doc []byte, pos *int) bool {
	if len(n.Nodes) == 0 {
		return false
	}
	for _, c := range n.Nodes {
		if !c.match(doc, pos) {
			return false
		}
	}
	return true
}

func (n *AllNode) matchValue(v bsoncore.Value, pos *int) bool {
	if len(n.Nodes) == 0 {
		return false
	}
	for _, c := range n.Nodes {
		if !c.matchValue(v, pos) {
			return false
		}
	}
	return true
}
