package plan

import (
	"math"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// Interval is an interval of BSON values in MongoDB's order. Lo <= Hi.
type Interval struct {
	Lo, Hi       bsoncore.Value
	LoInc, HiInc bool
}

// OIL is an ordered interval list: disjoint intervals in ascending value
// order. A nil OIL with the Full flag unset means "no values".
type OIL []Interval

// Value constructors.
var (
	minKey    = bsoncore.Value{Type: bsoncore.TypeMinKey}
	maxKey    = bsoncore.Value{Type: bsoncore.TypeMaxKey}
	nullV     = bsoncore.Value{Type: bsoncore.TypeNull}
	undefV    = bsoncore.Value{Type: bsoncore.TypeUndefined}
	emptyStr  = bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, "")}
	emptyObj  = bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: bsoncore.NewDocumentBuilder().Build()}
	emptyArr  = bsoncore.Value{Type: bsoncore.TypeArray, Data: bsoncore.NewArrayBuilder().Build()}
	negInf    = bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, math.Inf(-1))}
	posInf    = bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, math.Inf(1))}
	minBin    = bsoncore.Value{Type: bsoncore.TypeBinary, Data: bsoncore.AppendBinary(nil, 0, nil)}
	minOID    = bsoncore.Value{Type: bsoncore.TypeObjectID, Data: make([]byte, 12)}
	maxOID    = bsoncore.Value{Type: bsoncore.TypeObjectID, Data: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	falseV    = bsoncore.Value{Type: bsoncore.TypeBoolean, Data: bsoncore.AppendBoolean(nil, false)}
	trueV     = bsoncore.Value{Type: bsoncore.TypeBoolean, Data: bsoncore.AppendBoolean(nil, true)}
	minDate   = bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, math.MinInt64)}
	maxDate   = bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, math.MaxInt64)}
	minTS     = bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, 0, 0)}
	maxTS     = bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, math.MaxUint32, math.MaxUint32)}
	fullRange = Interval{Lo: minKey, Hi: maxKey, LoInc: true, HiInc: true}
)

// FullOIL is [MinKey, MaxKey]: no constraint.
func FullOIL() OIL { return OIL{fullRange} }

// IsFull reports whether o is [MinKey, MaxKey].
func (o OIL) IsFull() bool {
	return len(o) == 1 && o[0].Lo.Type == bsoncore.TypeMinKey && o[0].Hi.Type == bsoncore.TypeMaxKey
}

// IsPoint reports whether iv holds exactly one value.
func (iv Interval) IsPoint() bool {
	return iv.LoInc && iv.HiInc && bsonutil.Compare(iv.Lo, iv.Hi) == 0
}

// AllPoints reports whether every interval of o is a point.
func (o OIL) AllPoints() bool {
	for _, iv := range o {
		if !iv.IsPoint() {
			return false
		}
	}
	return len(o) > 0
}

// point returns [v, v].
func point(v bsoncore.Value) Interval { return Interval{Lo: v, Hi: v, LoInc: true, HiInc: true} }

// cmpLo orders intervals by their lower end (inclusive before exclusive).
func cmpLo(a, b Interval) int {
	if c := bsonutil.Compare(a.Lo, b.Lo); c != 0 {
		return c
	}
	switch {
	case a.LoInc == b.LoInc:
		return 0
	case a.LoInc:
		return -1
	}
	return 1
}

// empty reports whether iv holds no value.
func (iv Interval) empty() bool {
	c := bsonutil.Compare(iv.Lo, iv.Hi)
	return c > 0 || (c == 0 && !(iv.LoInc && iv.HiInc))
}

// normalize sorts intervals and merges the overlapping or touching ones.
func normalize(ivs []Interval) OIL {
	out := make([]Interval, 0, len(ivs))
	for _, iv := range ivs {
		if !iv.empty() {
			out = append(out, iv)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return cmpLo(out[i], out[j]) < 0 })
	w := 0
	for _, iv := range out {
		if w > 0 {
			last := &out[w-1]
			c := bsonutil.Compare(iv.Lo, last.Hi)
			if c < 0 || (c == 0 && (iv.LoInc || last.HiInc)) {
				hc := bsonutil.Compare(iv.Hi, last.Hi)
				if hc > 0 || (hc == 0 && iv.HiInc) {
					last.Hi, last.HiInc = iv.Hi, iv.HiInc
				}
				continue
			}
		}
		out[w] = iv
		w++
	}
	return OIL(out[:w])
}

// intersect returns the values in both a and b.
func intersect(a, b OIL) OIL {
	var out []Interval
	for _, x := range a {
		for _, y := range b {
			iv := x
			if c := bsonutil.Compare(y.Lo, iv.Lo); c > 0 || (c == 0 && !y.LoInc) {
				iv.Lo, iv.LoInc = y.Lo, y.LoInc
			}
			if c := bsonutil.Compare(y.Hi, iv.Hi); c < 0 || (c == 0 && !y.HiInc) {
				iv.Hi, iv.HiInc = y.Hi, y.HiInc
			}
			if !iv.empty() {
				out = append(out, iv)
			}
		}
	}
	return normalize(out)
}

// bracket returns the bounds of v's canonical type bracket: the smallest
// and largest values (with inclusivity) that compare within v's type.
// ok is false for types whose ranges the planner does not bound.
func bracket(v bsoncore.Value) (lo, hi bsoncore.Value, loInc, hiInc, ok bool) {
	switch {
	case bsonutil.IsNumber(v.Type):
		return negInf, posInf, true, true, true
	case v.Type == bsoncore.TypeString || v.Type == bsoncore.TypeSymbol:
		return emptyStr, emptyObj, true, false, true
	case v.Type == bsoncore.TypeEmbeddedDocument:
		return emptyObj, emptyArr, true, false, true
	case v.Type == bsoncore.TypeBinary:
		return minBin, minOID, true, false, true
	case v.Type == bsoncore.TypeObjectID:
		return minOID, maxOID, true, true, true
	case v.Type == bsoncore.TypeBoolean:
		return falseV, trueV, true, true, true
	case v.Type == bsoncore.TypeDateTime:
		return minDate, maxDate, true, true, true
	case v.Type == bsoncore.TypeTimestamp:
		return minTS, maxTS, true, true, true
	}
	return v, v, false, false, false
}

func isNaN(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeDouble:
		f := v.Double()
		return f != f
	case bsoncore.TypeDecimal128:
		d := bsonutil.Decimal(v)
		return d.IsNaN()
	}
	return false
}

// stringValue returns a string Value.
func stringValue(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}

// regexValue returns a regex Value.
func regexValue(pattern, options string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeRegex, Data: bsoncore.AppendRegex(nil, pattern, options)}
}
