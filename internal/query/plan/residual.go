package plan

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// guaranteed returns the top-level conjuncts of the filter that scanning
// ix within bounds answers exactly, so FETCH need not re-check them (its
// residual filter is the rest). It is conservative: nothing on a multikey
// index, nothing under $elemMatch, $or or $not, and only comparisons and
// $in whose operands the index orders exactly as the match does (numbers
// other than NaN and decimals, strings, ObjectIds, booleans, dates and
// timestamps); null, regex, MinKey/MaxKey, documents, arrays and binary
// data keep their predicate, as do paths with numeric components.
func guaranteed(ix *Index, preds []pred) []query.Node {
	if ix.Multikey {
		return nil
	}
	var out []query.Node
	for _, p := range preds {
		if !p.top || !p.exact || p.node == nil || !ix.suppliesValue(p.path) || hasNumericPart(p.path) {
			continue
		}
		if exactOperand(p.node) {
			out = append(out, p.node)
		}
	}
	return out
}

// exactOperand reports whether a comparison or $in has only operands whose
// index bounds select exactly the values the predicate matches.
func exactOperand(n query.Node) bool {
	switch t := n.(type) {
	case *query.CompareNode:
		return exactValue(t.Value)
	case *query.InNode:
		if len(t.Regexes) > 0 || t.HasNull || len(t.Values) == 0 {
			return false
		}
		for _, v := range t.Values {
			if !exactValue(v) {
				return false
			}
		}
		return true
	}
	return false
}

func exactValue(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return true
	case bsoncore.TypeDouble:
		return !isNaN(v)
	case bsoncore.TypeString, bsoncore.TypeObjectID, bsoncore.TypeBoolean,
		bsoncore.TypeDateTime, bsoncore.TypeTimestamp:
		return true
	}
	return false
}

// hasNumericPart reports whether a dotted path has an all-digit component
// (an array index or a field named by digits: both match, so the bounds
// alone do not decide).
func hasNumericPart(path string) bool {
	for _, part := range strings.Split(path, ".") {
		if part != "" && strings.Trim(part, "0123456789") == "" {
			return true
		}
	}
	return false
}

// residualFetch returns the FETCH above core: with the residual filter
// when the bounds guarantee some conjuncts, with the whole filter
// otherwise.
func residualFetch(p Params, ix *Index, preds []pred, core *Node) *Node {
	n := &Node{Stage: StageFetch, Filter: true, Children: []*Node{core}}
	drop := guaranteed(ix, preds)
	if len(drop) == 0 || p.Filter == nil {
		return n
	}
	n.Dropped = drop
	n.Residual = p.Filter.Without(drop)
	if n.Residual == nil {
		n.Filter = false
	}
	return n
}
