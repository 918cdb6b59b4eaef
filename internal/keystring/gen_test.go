package keystring

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Value constructors for tests.
func i32(x int32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, x)}
}
func i64(x int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, x)}
}
func dbl(x float64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, x)}
}
func decv(d bson.Decimal128) bsoncore.Value {
	h, l := d.GetBytes()
	return bsoncore.Value{Type: bsoncore.TypeDecimal128, Data: bsoncore.AppendDecimal128(nil, h, l)}
}
func dec(s string) bsoncore.Value {
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		panic(s + ": " + err.Error())
	}
	return decv(d)
}
func str(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}
func sym(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeSymbol, Data: bsoncore.AppendString(nil, s)}
}
func code(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeJavaScript, Data: bsoncore.AppendString(nil, s)}
}
func boolean(b bool) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeBoolean, Data: bsoncore.AppendBoolean(nil, b)}
}
func date(ms int64) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDateTime, Data: bsoncore.AppendDateTime(nil, ms)}
}
func ts(t, i uint32) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeTimestamp, Data: bsoncore.AppendTimestamp(nil, t, i)}
}
func oid(b ...byte) bsoncore.Value {
	var o [12]byte
	copy(o[12-len(b):], b)
	return bsoncore.Value{Type: bsoncore.TypeObjectID, Data: o[:]}
}
func bin(sub byte, p string) bsoncore.Value {
	d := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
	d = append(append(d, sub), p...)
	return bsoncore.Value{Type: bsoncore.TypeBinary, Data: d}
}
func regex(p, f string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeRegex, Data: bsoncore.AppendRegex(nil, p, f)}
}
func dbptr(ns string, o byte) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeDBPointer, Data: bsoncore.AppendDBPointer(nil, ns, bson.ObjectID{11: o})}
}
func cws(c string, scope bsoncore.Value) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeCodeWithScope, Data: bsoncore.AppendCodeWithScope(nil, c, scope.Data)}
}

var (
	minKey = bsoncore.Value{Type: bsoncore.TypeMinKey}
	maxKey = bsoncore.Value{Type: bsoncore.TypeMaxKey}
	null   = bsoncore.Value{Type: bsoncore.TypeNull}
	undef  = bsoncore.Value{Type: bsoncore.TypeUndefined}
)

// kv is a document element for doc().
type kv struct {
	k string
	v bsoncore.Value
}

func doc(elems ...kv) bsoncore.Value {
	idx, d := bsoncore.ReserveLength(nil)
	for _, e := range elems {
		d = bsoncore.AppendHeader(d, e.v.Type, e.k)
		d = append(d, e.v.Data...)
	}
	d = append(d, 0)
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: bsoncore.UpdateLength(d, idx, int32(len(d)))}
}

func arr(vals ...bsoncore.Value) bsoncore.Value {
	elems := make([]kv, len(vals))
	for i, v := range vals {
		elems[i] = kv{strconv.Itoa(i), v}
	}
	v := doc(elems...)
	v.Type = bsoncore.TypeArray
	return v
}

// source is the randomness a generator draws from: math/rand for property
// tests, the fuzzer's bytes for FuzzCompare.
type source interface {
	IntN(n int) int
	Uint64() uint64
}

// byteSource reads choices from fuzzer bytes; it yields zeros when empty.
type byteSource struct{ b []byte }

func (s *byteSource) Uint64() uint64 {
	var buf [8]byte
	n := copy(buf[:], s.b)
	s.b = s.b[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

func (s *byteSource) IntN(n int) int {
	if len(s.b) == 0 {
		return 0
	}
	c := int(s.b[0])
	s.b = s.b[1:]
	if n > 256 {
		c = c<<8 | int(s.Uint64()&0xFF)
	}
	return c % n
}

type gen struct{ r source }

var interestingFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 0.1, -0.1,
	math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1 << 53, 1<<53 + 2,
	1 << 63, -(1 << 63), 9.223372036854776e18, 1 << 64, 2147483647, 2147483648, -2147483648, 1e300, 1e-300,
	123.456, 1e15, 1e16}

var interestingInts = []int64{0, 1, -1, 2, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64,
	math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 53, 1<<53 + 1, -(1<<53 + 1), 1<<62 + 1, 1e18, 1e18 + 1,
	9007199254740993, 1 << 60}

var interestingDecimals = []string{"0", "-0", "0E-6176", "-0E+6111", "1", "1.0", "1.00", "-1.000", "0.1", "0.10", "-0.1",
	"NaN", "-NaN", "Infinity", "-Infinity", "9999999999999999999999999999999999E+6111",
	"-9999999999999999999999999999999999E+6111", "1E-6176", "-1E-6176", "1E+308", "1.8E+308", "1.7976931348623157E+308",
	"1.797693134862315708145274237317044E+308", "1.797693134862315708145274237317043E+308",
	"4.9406564584124654E-324", "4.940656458412465441765687928682213E-324", "2E-324", "9223372036854775807",
	"9223372036854775808", "9223372036854775807.5", "-9223372036854775808", "-9223372036854775809",
	"9007199254740993", "0.30000000000000004", "12.34", "12.340", "1234567890123456789012345678901234",
	"1.234567890123456789012345678901234", "1E+1000", "1E-1000", "10E-1001", "1E+34", "10000000000000000000000000000000000",
	"0.5", "5E-1", "0.25", "2147483647", "2147483648.0"}

func (g gen) number() bsoncore.Value {
	r := g.r
	switch r.IntN(12) {
	case 0:
		return i32(int32(r.Uint64()))
	case 1:
		return i32(int32(r.IntN(21)) - 10)
	case 2:
		return i64(int64(r.Uint64()))
	case 3:
		x := interestingInts[r.IntN(len(interestingInts))]
		return i64(x + int64(r.IntN(5)) - 2)
	case 4:
		return dbl(math.Float64frombits(r.Uint64()))
	case 5:
		return dbl(interestingFloats[r.IntN(len(interestingFloats))])
	case 6:
		return dbl(float64(r.IntN(41)-20) / float64(1+r.IntN(8)))
	case 7:
		return dec(interestingDecimals[r.IntN(len(interestingDecimals))])
	case 8: // small decimals, money-like
		return dec(strconv.Itoa(r.IntN(2001)-1000) + "E" + strconv.Itoa(r.IntN(9)-6))
	case 9: // random full decimals
		hi := r.Uint64() & (1<<49 - 1)
		if hi > 0x1ed09bead87c0 { // keep coefficient < 10^34
			hi >>= 1
		}
		exp := uint64(r.IntN(12288))
		if r.IntN(2) == 0 {
			exp = uint64(decExpBias + r.IntN(60) - 40)
		}
		h := hi | exp<<49 | uint64(r.IntN(2))<<63
		return decv(bson.NewDecimal128(h, r.Uint64()))
	case 10: // a decimal close to or equal to a double
		x := g.number()
		if x.Type != bsoncore.TypeDouble {
			return x
		}
		s := strconv.FormatFloat(x.Double(), 'e', r.IntN(35), 64)
		d, err := bson.ParseDecimal128(s)
		if err != nil {
			return x
		}
		return decv(d)
	}
	return g.variant(g.number())
}

// variant returns a value equal to or near v: the same number in another
// type or cohort, or a neighbour.
func (g gen) variant(v bsoncore.Value) bsoncore.Value {
	r := g.r
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		x := v.AsInt64()
		switch r.IntN(4) {
		case 0:
			return i64(x)
		case 1:
			return dbl(float64(x))
		case 2:
			return dec(strconv.FormatInt(x, 10) + "." + "000"[:r.IntN(4)])
		}
		return i64(x + int64(r.IntN(3)) - 1)
	case bsoncore.TypeDouble:
		x := v.Double()
		switch r.IntN(4) {
		case 0:
			if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
				return i64(int64(x))
			}
		case 1:
			if d, err := bson.ParseDecimal128(strconv.FormatFloat(x, 'e', 33, 64)); err == nil {
				return decv(d)
			}
		case 2:
			return dbl(math.Nextafter(x, math.Inf(1-2*r.IntN(2))))
		}
		return dbl(-x)
	case bsoncore.TypeDecimal128:
		s := bson.NewDecimal128(v.Decimal128()).String()
		if r.IntN(2) == 0 {
			if d, ok := new(big.Float).SetString(s); ok {
				f, _ := d.Float64()
				return dbl(f)
			}
		}
		return v
	case bsoncore.TypeString:
		return sym(string(v.StringValue()))
	}
	return v
}

func (g gen) str() string {
	r := g.r
	alphabet := "\x00\x01ab\xff"
	n := r.IntN(5)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func (g gen) cstr() string {
	r := g.r
	alphabet := "\x01abc\xff"
	n := r.IntN(4)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// value returns a random value of any type; depth bounds nesting.
func (g gen) value(depth int) bsoncore.Value {
	r := g.r
	k := r.IntN(22)
	if depth <= 0 && (k == 6 || k == 7 || k == 20) {
		k = 0
	}
	switch k {
	case 0, 1, 2, 3:
		return g.number()
	case 4:
		return str(g.str())
	case 5:
		return sym(g.str())
	case 6, 7:
		n := r.IntN(4)
		elems := make([]kv, n)
		for i := range elems {
			elems[i] = kv{g.cstr(), g.value(depth - 1)}
		}
		return doc(elems...)
	case 20:
		n := r.IntN(4)
		vals := make([]bsoncore.Value, n)
		for i := range vals {
			vals[i] = g.value(depth - 1)
		}
		return arr(vals...)
	case 8:
		return bin(byte(r.IntN(3))*0x40, g.str())
	case 9:
		return oid(byte(r.IntN(3)), byte(r.IntN(256)))
	case 10:
		return boolean(r.IntN(2) == 1)
	case 11:
		return date(int64(r.Uint64()) >> r.IntN(64))
	case 12:
		return ts(uint32(r.IntN(3))<<30, uint32(r.Uint64()))
	case 13:
		return regex(g.cstr(), g.cstr())
	case 14:
		return dbptr(g.cstr(), byte(r.IntN(3)))
	case 15:
		return code(g.str())
	case 16:
		return cws(g.cstr(), doc(kv{g.cstr(), g.value(0)}))
	case 17:
		return []bsoncore.Value{minKey, maxKey}[r.IntN(2)]
	case 18:
		return []bsoncore.Value{null, undef}[r.IntN(2)]
	}
	return g.number()
}

// pair returns two values that are often equal or close.
func (g gen) pair(depth int) (bsoncore.Value, bsoncore.Value) {
	a := g.value(depth)
	switch g.r.IntN(3) {
	case 0:
		return a, g.value(depth)
	case 1:
		return a, g.deepVariant(a)
	}
	return a, a
}

// deepVariant applies variant to the leaves of documents and arrays.
func (g gen) deepVariant(v bsoncore.Value) bsoncore.Value {
	if v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray {
		return g.variant(v)
	}
	els, _ := bsoncore.Document(v.Data).Elements()
	out := make([]kv, len(els))
	for i, e := range els {
		out[i] = kv{e.Key(), g.deepVariant(e.Value())}
	}
	if g.r.IntN(4) == 0 && len(out) > 0 {
		out = out[:len(out)-1]
	}
	nv := doc(out...)
	nv.Type = v.Type
	return nv
}

var _ source = (*rand.Rand)(nil)
