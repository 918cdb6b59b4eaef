package query

import (
	"cmp"
	"encoding/binary"
	"github.com/lodedb/lode/internal/collation"
	"math"
	"slices"
	"sort"

	"github.com/lodedb/lode/internal/bsonutil"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// CompareNode is a comparison predicate {Path: {Op: Value}}. A plain
// equality {a: 5} is a CompareNode with OpEQ.
type CompareNode struct {
	pathed
	Op Op
	// Value is the operand; under a collation, its sort key form
	// (collation.Collator.Transform), and Orig the operand as given.
	Value bsoncore.Value
	Orig  bsoncore.Value
	coll  *collation.Collator
}

// InNode is {Path: {$in: [...]}}: it matches when the path yields a value
// equal to one of Values or matched by one of Regexes. Values are sorted in
// MongoDB's order and distinct. HasNull is set when null is among them
// (then missing fields and undefined match too).
type InNode struct {
	pathed
	Values  []bsoncore.Value
	Regexes []*RegexNode
	HasNull bool
	// Orig, under a collation, holds the operands as given while Values
	// holds their sort keys.
	Orig []bsoncore.Value
	coll *collation.Collator
}

func (n *CompareNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *CompareNode) matchValue(v bsoncore.Value, _ *int) bool {
	if n.coll != nil {
		v = n.coll.Transform(v)
	}
	return compareMatches(n.Op, v, n.Value)
}

// isNaN reports whether a numeric value is NaN.
func isNaN(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeDouble:
		return math.IsNaN(v.Double())
	case bsoncore.TypeDecimal128:
		return bsonutil.Decimal(v).IsNaN()
	}
	return false
}

// compareMatches applies MongoDB's comparison-predicate rules to one value:
// only values of the same canonical type bracket compare, except that null
// and undefined (and missing) are interchangeable for $eq, $lte and $gte,
// and MinKey/MaxKey bound every other type. NaN equals NaN only.
func compareMatches(op Op, v, rhs bsoncore.Value) bool {
	if v.Type == rhs.Type && len(v.Data) == 8 && len(rhs.Data) == 8 &&
		(v.Type == bsoncore.TypeDateTime || v.Type == bsoncore.TypeInt64) {
		// The common range scan on dates and longs: same type, no NaN.
		return opHolds(op, cmp.Compare(int64(binary.LittleEndian.Uint64(v.Data)), int64(binary.LittleEndian.Uint64(rhs.Data))))
	}
	ct, rt := bsonutil.TypeOrder(v.Type), bsonutil.TypeOrder(rhs.Type)
	if ct != rt {
		if ct+rt == bsonutil.OrderNull+bsonutil.OrderUndefined &&
			(ct == bsonutil.OrderNull || rt == bsonutil.OrderNull) {
			return op == OpEQ || op == OpLTE || op == OpGTE
		}
		switch rhs.Type {
		case bsoncore.TypeMaxKey:
			return op == OpLT || op == OpLTE
		case bsoncore.TypeMinKey:
			return op == OpGT || op == OpGTE
		}
		return false
	}
	if ct == bsonutil.OrderNumber {
		vn, rn := isNaN(v), isNaN(rhs)
		if vn || rn {
			switch op {
			case OpLT, OpGT:
				return false
			default:
				return vn && rn
			}
		}
	}
	return opHolds(op, bsonutil.Compare(v, rhs))
}

// opHolds reports whether a comparison with result c (-1, 0, 1)
// satisfies op.
func opHolds(op Op, c int) bool {
	switch op {
	case OpEQ:
		return c == 0
	case OpLT:
		return c < 0
	case OpLTE:
		return c <= 0
	case OpGT:
		return c > 0
	case OpGTE:
		return c >= 0
	}
	return false
}

func (n *InNode) match(doc []byte, pos *int) bool {
	return walkPath(doc, n.parts, true, n, pos, -1)
}

func (n *InNode) matchValue(v bsoncore.Value, _ *int) bool {
	if n.HasNull && (v.Type == 0 || v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined) {
		return true
	}
	if n.coll != nil {
		v = n.coll.Transform(v)
	}
	vals := n.Values
	i := sort.Search(len(vals), func(i int) bool { return bsonutil.Compare(vals[i], v) >= 0 })
	if i < len(vals) && bsonutil.Compare(vals[i], v) == 0 && bsonutil.TypeOrder(vals[i].Type) == bsonutil.TypeOrder(v.Type) {
		return true
	}
	for _, r := range n.Regexes {
		if r.matchValue(v, nil) {
			return true
		}
	}
	return false
}

// sortDistinct sorts values in MongoDB's order and removes duplicates.
func sortDistinct(vals []bsoncore.Value) []bsoncore.Value {
	// Lists usually come sorted (generated ids): check before sorting.
	sorted := true
	for i := 1; i < len(vals); i++ {
		if bsonutil.Compare(vals[i-1], vals[i]) > 0 {
			sorted = false
			break
		}
	}
	if !sorted {
		slices.SortStableFunc(vals, bsonutil.Compare)
	}
	out := vals[:0]
	for i, v := range vals {
		if i > 0 && bsonutil.Compare(out[len(out)-1], v) == 0 {
			continue
		}
		out = append(out, v)
	}
	return out
}
