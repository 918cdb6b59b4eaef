package expr

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// Sum is the running total of $sum and $avg, the accumulators' and the
// expressions' alike (mongod's expression $sum is its accumulator):
// integers add exactly in int64 (an int32 result when every input was an
// int32 and the total fits), an int64 overflow moves to double, doubles
// add with Kahan's compensation, and any decimal makes the result
// decimal. Values that are not numbers are skipped.
type Sum struct {
	Count    int64 // numbers added
	Kind     bsoncore.Type
	I        int64
	Overflow bool
	F, C     float64 // Kahan sum and compensation
	Dec      bsoncore.Value
	HasDec   bool
}

// Add adds v when it is a number.
func (a *Sum) Add(v bsoncore.Value) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		x := bsonutil.AsInt64(v)
		if !a.Overflow {
			s := a.I + x
			if (a.I >= 0) == (x >= 0) && (s >= 0) != (x >= 0) {
				a.Overflow = true
				a.Kahan(float64(a.I) + float64(x))
				a.I = 0
			} else {
				a.I = s
			}
		} else {
			a.Kahan(float64(x))
		}
		if a.Kind != bsoncore.TypeDouble && a.Kind != bsoncore.TypeDecimal128 && (a.Kind != bsoncore.TypeInt64 || v.Type == bsoncore.TypeInt64) {
			a.Kind = v.Type
		}
	case bsoncore.TypeDouble:
		a.Kahan(v.Double())
		if a.Kind != bsoncore.TypeDecimal128 {
			a.Kind = bsoncore.TypeDouble
		}
	case bsoncore.TypeDecimal128:
		if !a.HasDec {
			a.Dec, a.HasDec = bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}, true
		} else {
			a.Dec = NumAdd(a.Dec, v)
		}
		a.Kind = bsoncore.TypeDecimal128
	default:
		return
	}
	a.Count++
}

// Kahan adds x to the double part with compensation.
func (a *Sum) Kahan(x float64) {
	y := x - a.C
	t := a.F + y
	a.C = (t - a.F) - y
	a.F = t
}

// Total is the sum: int32 0 when nothing was added.
func (a *Sum) Total() bsoncore.Value {
	switch {
	case a.Count == 0:
		return Int32(0)
	case a.Kind == bsoncore.TypeDecimal128:
		t := a.Dec
		if a.I != 0 {
			t = NumAdd(t, Int64(a.I))
		}
		if a.F != 0 {
			t = NumAdd(t, Double(a.F))
		}
		return t
	case a.Kind == bsoncore.TypeDouble || a.Overflow:
		return Double(a.F + float64(a.I))
	case a.Kind == bsoncore.TypeInt64:
		return Int64(a.I)
	case a.I >= math.MinInt32 && a.I <= math.MaxInt32:
		return Int32(int32(a.I))
	}
	return Int64(a.I)
}

// Avg is the mean: null when nothing was added, a decimal for decimal
// input, a double otherwise.
func (a *Sum) Avg() bsoncore.Value {
	if a.Count == 0 {
		return Null
	}
	t := a.Total()
	if t.Type == bsoncore.TypeDecimal128 {
		return NumDiv(t, Int64(a.Count))
	}
	return Double(bsonutil.AsFloat64(t) / float64(a.Count))
}
