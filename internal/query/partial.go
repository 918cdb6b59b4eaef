package query

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// partialFilterMaxDepth is mongod's internalPartialFilterExpressionMaxDepth:
// the deepest level of a partial filter's expression tree.
const partialFilterMaxDepth = 4

// CheckPartialFilter reports whether filter may be an index's
// partialFilterExpression, with mongod's rules (7.0): after the filter
// parses, every node of its tree is an equality, a range comparison
// ($lt, $lte, $gt, $gte), $type, $exists: true, $in, a geo predicate
// ($geoWithin, $geoIntersects), or an $and or $or of such nodes, at most
// partialFilterMaxDepth levels deep; anything else is CannotCreateIndex
// (67). $expr and $jsonSchema are QueryFeatureNotAllowed (224), $where,
// $text and $near BadValue (2), as mongod's parser refuses them there.
//
// The tree is mongod's: a document of one predicate is that predicate,
// of several an $and of them (each operator of a field is one); $all is
// an $and of equalities, $exists: false and $ne are negations.
func CheckPartialFilter(filter bsoncore.Document) error {
	if _, err := Parse(filter); err != nil {
		return err
	}
	return checkPartialDoc(filter, 0)
}

// partialNode is one node of the tree: an operator with its children
// (documents of $and and $or), or a leaf.
type partialNode struct {
	op   string // "$and", "$or", or the leaf's operator
	kids []bsoncore.Document
	ok   bool // a supported leaf
}

func checkPartialDoc(doc bsoncore.Document, level int) error {
	nodes, err := partialNodes(doc)
	if err != nil {
		return err
	}
	if len(nodes) == 1 {
		return checkPartialNode(nodes[0], level)
	}
	// Several predicates: an $and at this level.
	if level+1 > partialFilterMaxDepth {
		return partialDepthError()
	}
	for _, n := range nodes {
		if err := checkPartialNode(n, level+1); err != nil {
			return err
		}
	}
	return nil
}

func checkPartialNode(n partialNode, level int) error {
	if level+1 > partialFilterMaxDepth {
		return partialDepthError()
	}
	switch {
	case n.op == "$and" || n.op == "$or":
		for _, k := range n.kids {
			if err := checkPartialDoc(k, level+1); err != nil {
				return err
			}
		}
		return nil
	case n.ok:
		return nil
	}
	return errs.New(errs.CannotCreateIndex, "Expression not supported in partial index: %s", n.op)
}

func partialDepthError() error {
	return errs.New(errs.CannotCreateIndex, "partialFilterExpression depth may not exceed %d", partialFilterMaxDepth)
}

// partialNodes lists the predicates of one filter document.
func partialNodes(doc bsoncore.Document) ([]partialNode, error) {
	elems, err := doc.Elements()
	if err != nil {
		return nil, errs.New(errs.BadValue, "invalid partialFilterExpression: %v", err)
	}
	var out []partialNode
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch k {
		case "$and", "$or":
			n := partialNode{op: k}
			vals, _ := v.Array().Values()
			for _, x := range vals {
				n.kids = append(n.kids, x.Document())
			}
			out = append(out, n)
			continue
		case "$expr", "$jsonSchema":
			return nil, errs.New(errs.QueryFeatureNotAllowed, "%s is not allowed in this context", k)
		case "$where", "$text":
			return nil, errs.New(errs.BadValue, "%s is not allowed in this context", k)
		case "$comment":
			continue
		}
		if len(k) > 0 && k[0] == '$' {
			out = append(out, partialNode{op: k}) // $nor, $alwaysTrue...
			continue
		}
		if v.Type == bsoncore.TypeRegex {
			out = append(out, partialNode{op: "regex"})
			continue
		}
		if v.Type != bsoncore.TypeEmbeddedDocument || !operatorDoc(v) {
			out = append(out, partialNode{op: "$eq", ok: true})
			continue
		}
		ops, _ := v.Document().Elements()
		for _, o := range ops {
			name, arg := o.Key(), o.Value()
			switch name {
			case "$eq", "$lt", "$lte", "$gt", "$gte", "$type", "$in", "$geoWithin", "$geoIntersects", "$within":
				out = append(out, partialNode{op: name, ok: true})
			case "$exists":
				// $exists: false is a negation of $exists.
				if expr.Truthy(arg) {
					out = append(out, partialNode{op: name, ok: true})
				} else {
					out = append(out, partialNode{op: "$not"})
				}
			case "$all":
				out = append(out, allNode(arg))
			case "$near", "$nearSphere":
				return nil, errs.New(errs.BadValue, "$geoNear, $near, and $nearSphere are not allowed in this context")
			case "$options", "$maxDistance", "$minDistance":
				// parts of $regex and $near
			case "$ne", "$nin":
				out = append(out, partialNode{op: "$not"})
			default: // $not, $elemMatch, $size, $mod, $regex, $bits...
				out = append(out, partialNode{op: name})
			}
		}
	}
	return out, nil
}

// allNode is $all's node: an $and of equalities (one value: that
// equality), unsupported when a value is a regex or an $elemMatch.
func allNode(arg bsoncore.Value) partialNode {
	vals, _ := arg.Array().Values()
	for _, x := range vals {
		if x.Type == bsoncore.TypeRegex {
			return partialNode{op: "regex"}
		}
		if x.Type == bsoncore.TypeEmbeddedDocument {
			if k, _, _ := firstKey(x); k == "$elemMatch" {
				return partialNode{op: "$elemMatch"}
			}
		}
	}
	if len(vals) == 1 {
		return partialNode{op: "$eq", ok: true}
	}
	// An $and of equalities: build it as documents of one equality each.
	n := partialNode{op: "$and"}
	for range vals {
		n.kids = append(n.kids, oneEquality)
	}
	return n
}

// operatorDoc reports whether a field's value is a document of query
// operators ({$gt: 1}) rather than a document to compare with (a DBRef's
// {$ref, $id} is one of these).
func operatorDoc(v bsoncore.Value) bool {
	k, _, ok := firstKey(v)
	return ok && len(k) > 0 && k[0] == '$' && k != "$ref" && k != "$id" && k != "$db"
}

// oneEquality stands for an equality inside $all's $and.
var oneEquality = bsoncore.NewDocumentBuilder().AppendInt32("x", 1).Build()

// TopOperator returns the first of names that filter uses as a top-level
// operator, at its top or under $and, $or and $nor ("" for none): the
// places a query operator with no field ($expr, $where, $text) can sit.
func TopOperator(filter bsoncore.Document, names ...string) string {
	elems, _ := filter.Elements()
	for _, el := range elems {
		k := el.Key()
		for _, n := range names {
			if k == n {
				return k
			}
		}
		if k == "$and" || k == "$or" || k == "$nor" {
			if arr, ok := el.Value().ArrayOK(); ok {
				vals, _ := arr.Values()
				for _, v := range vals {
					if sub, ok := v.DocumentOK(); ok {
						if found := TopOperator(sub, names...); found != "" {
							return found
						}
					}
				}
			}
		}
	}
	return ""
}

// RefuseSpecial refuses the query features mongod bans where a filter is
// not a query of the collection (an array filter, a $pull condition):
// $expr (QueryFeatureNotAllowed), $where and $text (BadValue).
func RefuseSpecial(filter bsoncore.Document) error {
	switch op := TopOperator(filter, "$expr", "$where", "$text"); op {
	case "$expr":
		return errs.New(errs.QueryFeatureNotAllowed, "$expr is not allowed in this context")
	case "":
		return nil
	default:
		return errs.New(errs.BadValue, "%s is not allowed in this context", op)
	}
}
