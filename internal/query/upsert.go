package query

import (
	"strings"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// UpsertSeed returns the document an operator-style upsert starts from:
// the equality predicates of filter (top-level fields and those under
// $and; {a: v}, {a: {$eq: v}}, single-element $in and $or, and each
// value of $all, which mongod reads as an $and of equalities), with
// dotted paths expanded into embedded documents and _id first. Other
// predicates are ignored. Paths that overlap or repeat give
// NotSingleValueField, as in MongoDB.
func UpsertSeed(filter bsoncore.Document) (bsoncore.Document, error) {
	return upsertSeed(filter, false)
}

// UpsertSeedID returns the document a replacement upsert starts from: only
// the filter's equalities on _id count, as mongod extracts only the
// immutable fields for a replacement. A path below _id ({"_id.x": 1})
// gives NotExactValueField, since _id must be given whole; two
// equalities on _id give NotSingleValueField; the filter's other fields
// are ignored, overlapping or not.
func UpsertSeedID(filter bsoncore.Document) (bsoncore.Document, error) {
	return upsertSeed(filter, true)
}

func upsertSeed(filter bsoncore.Document, idOnly bool) (bsoncore.Document, error) {
	f, err := Parse(filter)
	if err != nil {
		return nil, err
	}
	var eqs []seedEq
	collectEqualities(f.root, &eqs)
	if idOnly {
		kept := eqs[:0]
		for _, e := range eqs {
			if e.path == "_id" || strings.HasPrefix(e.path, "_id.") {
				kept = append(kept, e)
			}
		}
		eqs = kept
	}
	for i := range eqs {
		if idOnly && eqs[i].path != "_id" {
			return nil, errs.New(errs.NotExactValueField, "field at '_id' must be exactly specified, field at sub-path '%s'found", eqs[i].path)
		}
		for j := 0; j < i; j++ {
			a, b := eqs[i].path, eqs[j].path
			if a == b {
				return nil, errs.New(errs.NotSingleValueField, "cannot infer query fields to set, path '%s' is matched twice", a)
			}
			if strings.HasPrefix(a, b+".") || strings.HasPrefix(b, a+".") {
				return nil, errs.New(errs.NotSingleValueField, "cannot infer query fields to set, both paths '%s' and '%s' are matched", b, a)
			}
		}
	}
	root := &seedNode{}
	for _, e := range eqs {
		root.set(splitPath(e.path), e.value)
	}
	// _id first
	for i, k := range root.order {
		if k == "_id" && i > 0 {
			copy(root.order[1:i+1], root.order[:i])
			root.order[0] = "_id"
		}
	}
	return root.build(), nil
}

type seedEq struct {
	path  string
	value bsoncore.Value
}

func collectEqualities(n Node, out *[]seedEq) {
	switch t := n.(type) {
	case *AndNode:
		for _, c := range t.Children {
			collectEqualities(c, out)
		}
	case *CompareNode:
		if t.Op == OpEQ && !strings.HasPrefix(t.Path, "$") {
			*out = append(*out, seedEq{t.Path, t.operand()})
		}
	case *InNode:
		if len(t.Values) == 1 && len(t.Regexes) == 0 {
			v := t.Values[0]
			if t.coll != nil {
				v = t.Orig[0]
			}
			*out = append(*out, seedEq{t.Path, v})
		}
	case *AllNode:
		// {a: {$all: [1, 2]}} is {$and: [{a: 1}, {a: 2}]} to mongod: one
		// value seeds a, two conflict; a regex or $elemMatch seeds nothing.
		for _, c := range t.Nodes {
			collectEqualities(c, out)
		}
	case *OrNode:
		if len(t.Children) == 1 {
			collectEqualities(t.Children[0], out)
		}
	}
}

type seedNode struct {
	order []string
	kids  map[string]*seedNode
	value *bsoncore.Value
}

func (s *seedNode) set(parts []string, v bsoncore.Value) {
	if s.kids == nil {
		s.kids = map[string]*seedNode{}
	}
	k := parts[0]
	c, ok := s.kids[k]
	if !ok {
		c = &seedNode{}
		s.kids[k] = c
		s.order = append(s.order, k)
	}
	if len(parts) == 1 {
		c.value = &v
		return
	}
	c.set(parts[1:], v)
}

func (s *seedNode) build() bsoncore.Document {
	idx, d := bsoncore.AppendDocumentStart(nil)
	for _, k := range s.order {
		c := s.kids[k]
		if c.value != nil {
			d = bsoncore.AppendValueElement(d, k, *c.value)
		} else {
			d = bsoncore.AppendDocumentElement(d, k, c.build())
		}
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d
}
