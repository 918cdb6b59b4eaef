package update

import (
	"math"
	"math/big"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// Numeric helpers with mongod's SafeNum rules: int32 op int32 stays int32
// unless it overflows (then int64); an int64 result that overflows is
// invalid; a double makes the result double; a decimal makes it decimal.

func int32Value(i int32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, i)}
}

func int64Value(i int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, i)}
}

func doubleValue(f float64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, f)}
}

func decimalValue(d bson.Decimal128) bsoncore.Value {
	h, l := d.GetBytes()
	return bsoncore.Value{Type: bsoncore.TypeDecimal128, Data: bsoncore.AppendDecimal128(nil, h, l)}
}

// arith computes a+b (mul false) or a*b (mul true). ok is false when the
// result is not representable (int64 overflow).
func arith(a, b bsoncore.Value, mul bool) (bsoncore.Value, bool) {
	switch {
	case a.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128:
		return decimalArith(a, b, mul), true
	case a.Type == bsoncore.TypeDouble || b.Type == bsoncore.TypeDouble:
		x, y := bsonutil.AsFloat64(a), bsonutil.AsFloat64(b)
		if mul {
			return doubleValue(x * y), true
		}
		return doubleValue(x + y), true
	case a.Type == bsoncore.TypeInt32 && b.Type == bsoncore.TypeInt32:
		x, y := int64(a.Int32()), int64(b.Int32())
		r := x + y
		if mul {
			r = x * y
		}
		if r >= math.MinInt32 && r <= math.MaxInt32 {
			return int32Value(int32(r)), true
		}
		return int64Value(r), true
	}
	x, y := bsonutil.AsInt64(a), bsonutil.AsInt64(b)
	if mul {
		r := new(big.Int).Mul(big.NewInt(x), big.NewInt(y))
		if !r.IsInt64() {
			return bsoncore.Value{}, false
		}
		return int64Value(r.Int64()), true
	}
	r := x + y
	if (y > 0 && r < x) || (y < 0 && r > x) {
		return bsoncore.Value{}, false
	}
	return int64Value(r), true
}

// bitOp applies and/or/xor to two integers; int32 with int32 stays int32.
func bitOp(a, b bsoncore.Value, op string) bsoncore.Value {
	x, y := bsonutil.AsInt64(a), bsonutil.AsInt64(b)
	var r int64
	switch op {
	case "and":
		r = x & y
	case "or":
		r = x | y
	default:
		r = x ^ y
	}
	if a.Type == bsoncore.TypeInt32 && b.Type == bsoncore.TypeInt32 {
		return int32Value(int32(r))
	}
	return int64Value(r)
}

// zeroLike returns a zero of v's numeric type.
func zeroLike(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeInt64:
		return int64Value(0)
	case bsoncore.TypeDouble:
		return doubleValue(0)
	case bsoncore.TypeDecimal128:
		d, _ := bson.ParseDecimal128("0")
		return decimalValue(d)
	}
	return int32Value(0)
}

// debugNum renders a number as SafeNum::debugString: (NumberInt)42.
func debugNum(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeInt32:
		return "(NumberInt)" + strconv.FormatInt(int64(v.Int32()), 10)
	case bsoncore.TypeInt64:
		return "(NumberLong)" + strconv.FormatInt(v.Int64(), 10)
	case bsoncore.TypeDouble:
		return "(NumberDouble)" + strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case bsoncore.TypeDecimal128:
		return "(NumberDecimal)" + bsonutil.Decimal(v).String()
	}
	return "(EOO)"
}

// decParts returns a finite number as coefficient and base-10 exponent.
// Doubles are converted with 15 significant digits, as mongod does.
func decParts(v bsoncore.Value) (*big.Int, int, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return big.NewInt(bsonutil.AsInt64(v)), 0, true
	case bsoncore.TypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, 0, false
		}
		d, err := bson.ParseDecimal128(strconv.FormatFloat(f, 'g', 15, 64))
		if err != nil {
			return nil, 0, false
		}
		c, e, err := d.BigInt()
		return c, e, err == nil
	case bsoncore.TypeDecimal128:
		c, e, err := bsonutil.Decimal(v).BigInt()
		return c, e, err == nil
	}
	return nil, 0, false
}

var (
	bigTen  = big.NewInt(10)
	maxCoef = new(big.Int).Sub(new(big.Int).Exp(bigTen, big.NewInt(34), nil), big.NewInt(1))
)

func decimalArith(a, b bsoncore.Value, mul bool) bsoncore.Value {
	ca, ea, oka := decParts(a)
	cb, eb, okb := decParts(b)
	if !oka || !okb {
		// NaN or infinity: float semantics give the right special value.
		x, y := bsonutil.AsFloat64(a), bsonutil.AsFloat64(b)
		r := x + y
		if mul {
			r = x * y
		}
		return decimalFromFloatSpecial(r)
	}
	var c *big.Int
	var e int
	if mul {
		c, e = new(big.Int).Mul(ca, cb), ea+eb
	} else {
		e = min(ea, eb)
		x := new(big.Int).Mul(ca, new(big.Int).Exp(bigTen, big.NewInt(int64(ea-e)), nil))
		y := new(big.Int).Mul(cb, new(big.Int).Exp(bigTen, big.NewInt(int64(eb-e)), nil))
		c = x.Add(x, y)
	}
	c, e = roundCoef(c, e)
	d, ok := bson.ParseDecimal128FromBigInt(c, e)
	if !ok {
		if c.Sign() < 0 {
			return decimalFromFloatSpecial(math.Inf(-1))
		}
		return decimalFromFloatSpecial(math.Inf(1))
	}
	return decimalValue(d)
}

// roundCoef rounds a coefficient to 34 digits, half to even.
func roundCoef(c *big.Int, e int) (*big.Int, int) {
	neg := c.Sign() < 0
	abs := new(big.Int).Abs(c)
	for abs.Cmp(maxCoef) > 0 {
		q, r := new(big.Int).QuoRem(abs, bigTen, new(big.Int))
		rv := r.Int64()
		if rv > 5 || (rv == 5 && q.Bit(0) == 1) {
			q.Add(q, big.NewInt(1))
		}
		abs = q
		e++
	}
	if neg {
		abs.Neg(abs)
	}
	return abs, e
}

func decimalFromFloatSpecial(f float64) bsoncore.Value {
	s := "NaN"
	if math.IsInf(f, 1) {
		s = "Infinity"
	} else if math.IsInf(f, -1) {
		s = "-Infinity"
	}
	d, _ := bson.ParseDecimal128(s)
	return decimalValue(d)
}
