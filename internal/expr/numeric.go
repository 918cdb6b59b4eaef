package expr

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/lodedb/lode/internal/bsonutil"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Numeric widening order.
const (
	kInt32 = iota + 1
	kInt64
	kDouble
	kDecimal
)

func numKind(t bsoncore.Type) int {
	switch t {
	case bsoncore.TypeInt32:
		return kInt32
	case bsoncore.TypeInt64:
		return kInt64
	case bsoncore.TypeDouble:
		return kDouble
	case bsoncore.TypeDecimal128:
		return kDecimal
	}
	return 0
}

func isNum(v bsoncore.Value) bool { return numKind(v.Type) != 0 }

func asF(v bsoncore.Value) float64 { return bsonutil.AsFloat64(v) }

// mkInt returns an int of kind k (int32 or int64) when i fits.
func mkInt(i int64, k int) bsoncore.Value {
	if k == kInt32 && i >= math.MinInt32 && i <= math.MaxInt32 {
		return Int32(int32(i))
	}
	return Int64(i)
}

// NumAdd adds two numbers with MongoDB's type rules: int32 overflow widens
// to int64, int64 overflow to double, any double gives double, any
// decimal gives decimal.
func NumAdd(a, b bsoncore.Value) bsoncore.Value {
	k := max(numKind(a.Type), numKind(b.Type))
	switch k {
	case kDecimal:
		return decAdd(toDec(a), toDec(b)).value()
	case kDouble:
		return Double(asF(a) + asF(b))
	}
	x, y := bsonutil.AsInt64(a), bsonutil.AsInt64(b)
	s := x + y
	if (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0) {
		return Double(float64(x) + float64(y))
	}
	return mkInt(s, k)
}

// NumSub subtracts b from a with MongoDB's type rules.
func NumSub(a, b bsoncore.Value) bsoncore.Value {
	k := max(numKind(a.Type), numKind(b.Type))
	switch k {
	case kDecimal:
		return decAdd(toDec(a), decNeg(toDec(b))).value()
	case kDouble:
		return Double(asF(a) - asF(b))
	}
	x, y := bsonutil.AsInt64(a), bsonutil.AsInt64(b)
	s := x - y
	if (x >= 0) != (y >= 0) && (s >= 0) != (x >= 0) {
		return Double(float64(x) - float64(y))
	}
	return mkInt(s, k)
}

// NumMul multiplies two numbers with MongoDB's type rules.
func NumMul(a, b bsoncore.Value) bsoncore.Value {
	k := max(numKind(a.Type), numKind(b.Type))
	switch k {
	case kDecimal:
		return decMul(toDec(a), toDec(b)).value()
	case kDouble:
		return Double(asF(a) * asF(b))
	}
	x, y := bsonutil.AsInt64(a), bsonutil.AsInt64(b)
	if p, ok := mul64(x, y); ok {
		return mkInt(p, k)
	}
	return Double(float64(x) * float64(y))
}

func mul64(x, y int64) (int64, bool) {
	if x == 0 || y == 0 {
		return 0, true
	}
	neg := (x < 0) != (y < 0)
	ux, uy := uint64(x), uint64(y)
	if x < 0 {
		ux = uint64(-x)
	}
	if y < 0 {
		uy = uint64(-y)
	}
	hi, lo := bits.Mul64(ux, uy)
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return -int64(lo), true
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// numIsZero reports whether a number is zero.
func numIsZero(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeDecimal128:
		return decIsZero(v)
	case bsoncore.TypeDouble:
		return v.Double() == 0
	}
	return bsonutil.AsInt64(v) == 0
}

// float64ToInt64 reports whether f is integral and fits int64.
func float64ToInt64(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < -9223372036854775808.0 || f >= 9223372036854775808.0 {
		return 0, false
	}
	return int64(f), true
}

// asIntegral returns v as an int64 if it is a number with an integral value
// that fits.
func asIntegral(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil.AsInt64(v), true
	case bsoncore.TypeDouble:
		return float64ToInt64(v.Double())
	case bsoncore.TypeDecimal128:
		d := toDec(v)
		if d.special() {
			return 0, false
		}
		c, e := d.c, d.e
		if e >= 0 {
			if e > 20 {
				return 0, c.Sign() == 0
			}
			p := new(big.Int).Mul(c, new(big.Int).Exp(bigTen, big.NewInt(int64(e)), nil))
			if !p.IsInt64() {
				return 0, false
			}
			return p.Int64(), true
		}
		p := new(big.Int).Exp(bigTen, big.NewInt(int64(-e)), nil)
		q, r := new(big.Int).QuoRem(c, p, new(big.Int))
		if r.Sign() != 0 || !q.IsInt64() {
			return 0, false
		}
		return q.Int64(), true
	}
	return 0, false
}

// NumDiv divides two numbers as $divide does (double, or decimal when
// either is decimal). b must be non-zero.
func NumDiv(a, b bsoncore.Value) bsoncore.Value {
	if a.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128 {
		return decDiv(toDec(a), toDec(b)).value()
	}
	return Double(asF(a) / asF(b))
}
