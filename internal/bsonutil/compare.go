// Package bsonutil holds the BSON value helpers that every layer shares:
// MongoDB's canonical type order and value comparison. It works on raw
// bsoncore values and never converts documents to maps.
package bsonutil

import (
	"bytes"
	"math"
	"math/big"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Decimal returns a decimal128 value as the driver's bson.Decimal128.
func Decimal(v bsoncore.Value) bson.Decimal128 {
	h, l := v.Decimal128()
	return bson.NewDecimal128(h, l)
}

// Canonical type brackets in MongoDB's comparison order. Values of
// different brackets compare by bracket; numbers share one bracket, as do
// strings and symbols.
const (
	OrderMinKey    = -1
	OrderUndefined = 0
	OrderNull      = 5
	OrderNumber    = 10
	OrderString    = 15
	OrderObject    = 20
	OrderArray     = 25
	OrderBinary    = 30
	OrderObjectID  = 35
	OrderBool      = 40
	OrderDate      = 45
	OrderTimestamp = 47
	OrderRegex     = 50
	OrderDBPointer = 55
	OrderCode      = 60
	OrderCodeScope = 65
	OrderMaxKey    = 127
)

// TypeOrder returns the canonical comparison bracket of a BSON type.
func TypeOrder(t bsoncore.Type) int {
	switch t {
	case bsoncore.TypeMinKey:
		return OrderMinKey
	case bsoncore.TypeUndefined, 0:
		return OrderUndefined
	case bsoncore.TypeNull:
		return OrderNull
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDecimal128:
		return OrderNumber
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return OrderString
	case bsoncore.TypeEmbeddedDocument:
		return OrderObject
	case bsoncore.TypeArray:
		return OrderArray
	case bsoncore.TypeBinary:
		return OrderBinary
	case bsoncore.TypeObjectID:
		return OrderObjectID
	case bsoncore.TypeBoolean:
		return OrderBool
	case bsoncore.TypeDateTime:
		return OrderDate
	case bsoncore.TypeTimestamp:
		return OrderTimestamp
	case bsoncore.TypeRegex:
		return OrderRegex
	case bsoncore.TypeDBPointer:
		return OrderDBPointer
	case bsoncore.TypeJavaScript:
		return OrderCode
	case bsoncore.TypeCodeWithScope:
		return OrderCodeScope
	case bsoncore.TypeMaxKey:
		return OrderMaxKey
	}
	return OrderMaxKey + 1
}

// IsNumber reports whether t is one of the four numeric BSON types.
func IsNumber(t bsoncore.Type) bool {
	return t == bsoncore.TypeInt32 || t == bsoncore.TypeInt64 ||
		t == bsoncore.TypeDouble || t == bsoncore.TypeDecimal128
}

// Compare compares two BSON values in MongoDB's order (simple collation).
// It returns -1, 0 or +1. Numbers compare by value across int32, int64,
// double and decimal128; NaN sorts below every other number and equals NaN.
func Compare(a, b bsoncore.Value) int {
	oa, ob := TypeOrder(a.Type), TypeOrder(b.Type)
	if oa != ob {
		return cmpInt(oa, ob)
	}
	switch oa {
	case OrderMinKey, OrderMaxKey, OrderUndefined, OrderNull:
		return 0
	case OrderNumber:
		return CompareNumbers(a, b)
	case OrderString:
		return bytes.Compare(stringBytes(a), stringBytes(b))
	case OrderObject, OrderArray:
		return CompareDocuments(a.Data, b.Data)
	case OrderBinary:
		la, lb := len(a.Data), len(b.Data)
		if la != lb {
			return cmpInt(la, lb)
		}
		// length (4 bytes), subtype (1 byte), payload
		if len(a.Data) >= 5 && a.Data[4] != b.Data[4] {
			return cmpInt(int(a.Data[4]), int(b.Data[4]))
		}
		return bytes.Compare(a.Data, b.Data)
	case OrderObjectID:
		return bytes.Compare(a.Data, b.Data)
	case OrderBool:
		return cmpInt(int(a.Data[0]), int(b.Data[0]))
	case OrderDate:
		return cmpInt64(a.DateTime(), b.DateTime())
	case OrderTimestamp:
		ta, ia := a.Timestamp()
		tb, ib := b.Timestamp()
		if ta != tb {
			return cmpUint(uint64(ta), uint64(tb))
		}
		return cmpUint(uint64(ia), uint64(ib))
	case OrderRegex:
		pa, fa := a.Regex()
		pb, fb := b.Regex()
		if c := cmpString(pa, pb); c != 0 {
			return c
		}
		return cmpString(fa, fb)
	case OrderDBPointer:
		na, oa := a.DBPointer()
		nb, ob := b.DBPointer()
		if len(na) != len(nb) {
			return cmpInt(len(na), len(nb))
		}
		if c := cmpString(na, nb); c != 0 {
			return c
		}
		return bytes.Compare(oa[:], ob[:])
	case OrderCode:
		return cmpString(a.JavaScript(), b.JavaScript())
	case OrderCodeScope:
		ca, sa := a.CodeWithScope()
		cb, sb := b.CodeWithScope()
		if c := cmpString(ca, cb); c != 0 {
			return c
		}
		return CompareDocuments(sa, sb)
	}
	return bytes.Compare(a.Data, b.Data)
}

// Equal reports whether a and b compare equal in MongoDB's order.
func Equal(a, b bsoncore.Value) bool { return Compare(a, b) == 0 }

// CompareDocuments compares two documents (or arrays) element by element as
// MongoDB does: for each position the canonical type bracket, then the
// field name, then the value. A document that is a prefix of the other
// sorts first.
func CompareDocuments(a, b []byte) int {
	ia := bsoncore.Document(a)
	ib := bsoncore.Document(b)
	ea, erra := ia.Elements()
	eb, errb := ib.Elements()
	if erra != nil || errb != nil {
		return bytes.Compare(a, b)
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		va, vb := ea[i].Value(), eb[i].Value()
		if c := cmpInt(TypeOrder(va.Type), TypeOrder(vb.Type)); c != 0 {
			return c
		}
		if c := cmpString(ea[i].Key(), eb[i].Key()); c != 0 {
			return c
		}
		if c := Compare(va, vb); c != 0 {
			return c
		}
	}
	return cmpInt(len(ea), len(eb))
}

func stringBytes(v bsoncore.Value) []byte {
	// string and symbol share layout: int32 length, bytes, NUL.
	if len(v.Data) < 5 {
		return nil
	}
	return v.Data[4 : len(v.Data)-1]
}

// CompareNumbers compares two numeric values by value. NaN is below every
// other number and equal to NaN; -0 equals 0.
func CompareNumbers(a, b bsoncore.Value) int {
	ta, tb := a.Type, b.Type
	if isInt(ta) && isInt(tb) {
		return cmpInt64(AsInt64(a), AsInt64(b))
	}
	if ta == bsoncore.TypeDecimal128 || tb == bsoncore.TypeDecimal128 {
		return compareViaBig(a, b)
	}
	if ta == bsoncore.TypeDouble && tb == bsoncore.TypeDouble {
		return cmpFloat(a.Double(), b.Double())
	}
	if ta == bsoncore.TypeDouble {
		return -cmpIntFloat(AsInt64(b), a.Double())
	}
	return cmpIntFloat(AsInt64(a), b.Double())
}

func isInt(t bsoncore.Type) bool { return t == bsoncore.TypeInt32 || t == bsoncore.TypeInt64 }

// AsInt64 returns an int32 or int64 value as int64. Other types return 0.
func AsInt64(v bsoncore.Value) int64 {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32())
	case bsoncore.TypeInt64:
		return v.Int64()
	}
	return 0
}

// AsFloat64 returns a numeric value as float64 (decimal128 is rounded).
// Non-numeric values return NaN.
func AsFloat64(v bsoncore.Value) float64 {
	switch v.Type {
	case bsoncore.TypeInt32:
		return float64(v.Int32())
	case bsoncore.TypeInt64:
		return float64(v.Int64())
	case bsoncore.TypeDouble:
		return v.Double()
	case bsoncore.TypeDecimal128:
		f, ok := decimalToBig(v)
		if !ok {
			return decimalSpecial(v)
		}
		x, _ := f.Float64()
		return x
	}
	return math.NaN()
}

// cmpFloat orders doubles with NaN lowest and NaN == NaN.
func cmpFloat(x, y float64) int {
	nx, ny := math.IsNaN(x), math.IsNaN(y)
	switch {
	case nx && ny:
		return 0
	case nx:
		return -1
	case ny:
		return 1
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// cmpIntFloat compares an int64 with a float64 exactly.
func cmpIntFloat(i int64, f float64) int {
	if math.IsNaN(f) {
		return 1
	}
	if f >= 9223372036854775808.0 { // 2^63
		return -1
	}
	if f < -9223372036854775808.0 {
		return 1
	}
	t := math.Trunc(f)
	ti := int64(t)
	if i != ti {
		return cmpInt64(i, ti)
	}
	frac := f - t
	switch {
	case frac > 0:
		return -1
	case frac < 0:
		return 1
	}
	return 0
}

const bigPrec = 512

func decimalToBig(v bsoncore.Value) (*big.Float, bool) {
	bi, exp, err := Decimal(v).BigInt()
	if err != nil {
		return nil, false
	}
	f := new(big.Float).SetPrec(bigPrec).SetInt(bi)
	if exp != 0 {
		p := new(big.Float).SetPrec(bigPrec).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil))
		if exp > 0 {
			f.Mul(f, p)
		} else {
			f.Quo(f, p)
		}
	}
	return f, true
}

// decimalSpecial returns NaN or ±Inf for a decimal128 that BigInt refused.
func decimalSpecial(v bsoncore.Value) float64 {
	d := Decimal(v)
	if d.IsNaN() {
		return math.NaN()
	}
	if d.IsInf() > 0 {
		return math.Inf(1)
	}
	if d.IsInf() < 0 {
		return math.Inf(-1)
	}
	return math.NaN()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func toBig(v bsoncore.Value) (f *big.Float, special float64, isSpecial bool) {
	switch v.Type {
	case bsoncore.TypeDecimal128:
		if b, ok := decimalToBig(v); ok {
			return b, 0, false
		}
		return nil, decimalSpecial(v), true
	case bsoncore.TypeDouble:
		x := v.Double()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, x, true
		}
		return new(big.Float).SetPrec(bigPrec).SetFloat64(x), 0, false
	default:
		return new(big.Float).SetPrec(bigPrec).SetInt64(AsInt64(v)), 0, false
	}
}

func compareViaBig(a, b bsoncore.Value) int {
	fa, sa, xa := toBig(a)
	fb, sb, xb := toBig(b)
	if xa || xb {
		if !xa {
			sa, _ = fa.Float64()
		}
		if !xb {
			sb, _ = fb.Float64()
		}
		if xa && xb {
			return cmpFloat(sa, sb)
		}
		// One side is NaN or ±Inf and the other is finite. A finite
		// decimal may round to ±Inf as a float64, so order by the special
		// value alone: NaN is lowest, -Inf below and +Inf above every
		// finite number.
		special, sign := sa, 1
		if xb {
			special, sign = sb, -1
		}
		switch {
		case math.IsNaN(special):
			return -sign
		case special < 0:
			return -sign
		default:
			return sign
		}
	}
	return fa.Cmp(fb)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
