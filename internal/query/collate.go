package query

import (
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ParseCollated is ParseWithVars under a collation: string comparisons
// ($eq, $ne, $lt.., $in, $nin, $all, $elemMatch) use coll's order, as
// mongod applies a query's collation. A nil coll is the simple collation
// (ParseWithVars). Comparison operands are held as sort keys (their
// original values stay for explain and upserts), so the planner's bounds
// on an index with the same collation are in its key space.
//
// $expr's expressions are parsed with coll as their collator, as mongod's
// ExpressionContext carries the query's collator.
func ParseCollated(filter bsoncore.Document, epc *expr.ParseContext, vars *expr.Vars, coll *collation.Collator) (*Filter, error) {
	if coll != nil {
		if epc == nil {
			epc = expr.NewParseContext()
		}
		prev := epc.Collator
		epc.Collator = coll
		defer func() { epc.Collator = prev }()
	}
	f, err := ParseWithVars(filter, epc, vars)
	if err != nil || coll == nil {
		return f, err
	}
	if err := collateNode(f.root, coll); err != nil {
		return nil, err
	}
	f.coll = coll
	return f, nil
}

// Collator is the filter's collation (nil: simple).
func (f *Filter) Collator() *collation.Collator {
	if f == nil {
		return nil
	}
	return f.coll
}

// collateNode switches the comparisons under n to coll.
func collateNode(n Node, coll *collation.Collator) error {
	switch t := n.(type) {
	case *CompareNode:
		t.Orig = t.Value
		t.Value = coll.Transform(t.Value)
		t.coll = coll
	case *InNode:
		t.Orig = t.Values
		keys := make([]bsoncore.Value, len(t.Values))
		for i, v := range t.Values {
			keys[i] = coll.Transform(v)
		}
		t.Values = sortDistinct(keys)
		t.coll = coll
		for _, r := range t.Regexes {
			r.collated = true
		}
	case *RegexNode:
		t.collated = true
	case *AndNode:
		return collateAll(t.Children, coll)
	case *OrNode:
		return collateAll(t.Children, coll)
	case *NorNode:
		return collateAll(t.Children, coll)
	case *NotNode:
		return collateNode(t.Child, coll)
	case *ElemMatchObjectNode:
		return collateNode(t.Sub, coll)
	case *ElemMatchValueNode:
		return collateAll(t.Preds, coll)
	case *AllNode:
		return collateAll(t.Nodes, coll)
	case *ExprNode:
		// Parsed under coll by ParseCollated.
	case *JSONSchemaNode:
		// Left binary: mongod's $jsonSchema ignores the collation (its
		// enum is an $_internalSchemaEq, whose comparator has no
		// collator; its other keywords compare no strings).
	}
	return nil
}

func collateAll(ns []Node, coll *collation.Collator) error {
	for _, c := range ns {
		if err := collateNode(c, coll); err != nil {
			return err
		}
	}
	return nil
}

// ComparesStrings reports whether the filter's outcome can depend on how
// strings compare: some comparison operand is or holds a string, or a
// regex, $expr or $jsonSchema is present. An index whose collation
// differs from the query's can bound only filters that do not.
func (f *Filter) ComparesStrings() bool { return comparesStrings(f.root) }

// NodeComparesStrings is ComparesStrings for one node of a filter.
func NodeComparesStrings(n Node) bool { return comparesStrings(n) }

func comparesStrings(n Node) bool {
	switch t := n.(type) {
	case *CompareNode:
		return collation.HasString(t.Value)
	case *InNode:
		if len(t.Regexes) > 0 {
			return true
		}
		for _, v := range t.Values {
			if collation.HasString(v) {
				return true
			}
		}
	case *RegexNode, *ExprNode, *JSONSchemaNode:
		return true
	case *AndNode:
		return anyStrings(t.Children)
	case *OrNode:
		return anyStrings(t.Children)
	case *NorNode:
		return anyStrings(t.Children)
	case *NotNode:
		return comparesStrings(t.Child)
	case *ElemMatchObjectNode:
		return comparesStrings(t.Sub)
	case *ElemMatchValueNode:
		return anyStrings(t.Preds)
	case *AllNode:
		return anyStrings(t.Nodes)
	}
	return false
}

func anyStrings(ns []Node) bool {
	for _, c := range ns {
		if comparesStrings(c) {
			return true
		}
	}
	return false
}
