package keystring

import (
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Type-bit codes. The type bits of a key are one code per number and per
// string-like value (string or symbol), in the order their encodings
// appear in the key, nested values included. A missing code (the type bits
// ended) reads as 0.
//
// For numbers, code 0 means the natural type of the decoded value: int32
// if it is an integer that fits int32, else int64 if it is an integer that
// fits int64, else double when the key holds an exact double, else
// decimal128. The other codes are:
//
//	1  int64
//	2  double
//	3  double -0.0
//	4  decimal128, followed by 2 big-endian bytes: bit 15 the sign (kept
//	   for zeros), bits 0-13 the biased exponent (exponent+6176)
//
// For strings, code 0 is a string and code 1 a symbol.
const (
	tbNatural = 0
	tbInt64   = 1
	tbDouble  = 2
	tbNegZero = 3
	tbDecimal = 4
	tbSymbol  = 1
)

// AppendTypeBits appends the type-bit codes of v to dst. The codes of a
// compound key are the concatenation of its fields' codes; pass the result
// through TrimTypeBits before storing it.
func AppendTypeBits(dst []byte, v bsoncore.Value) []byte {
	switch v.Type {
	case bsoncore.TypeInt32:
		return append(dst, tbNatural)
	case bsoncore.TypeInt64:
		if x, ok := v.Int64OK(); ok && x == int64(int32(x)) {
			return append(dst, tbInt64)
		}
		return append(dst, tbNatural)
	case bsoncore.TypeDouble:
		x, _ := v.DoubleOK()
		switch {
		case x == 0 && math.Signbit(x):
			return append(dst, tbNegZero)
		case x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63:
			return append(dst, tbDouble)
		}
		return append(dst, tbNatural)
	case bsoncore.TypeDecimal128:
		h, l, _ := v.Decimal128OK()
		p := splitDecimal(h, l)
		w := uint16(p.exp + decExpBias)
		if p.nan || p.inf {
			w = 0
		}
		if p.neg {
			w |= 1 << 15
		}
		return binary.BigEndian.AppendUint16(append(dst, tbDecimal), w)
	case bsoncore.TypeString:
		return append(dst, tbNatural)
	case bsoncore.TypeSymbol:
		return append(dst, tbSymbol)
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		if body, ok := docBody(v.Data); ok {
			return appendBodyTypeBits(dst, body)
		}
	case bsoncore.TypeCodeWithScope:
		if _, scope, ok := v.CodeWithScopeOK(); ok {
			if body, ok := docBody(scope); ok {
				return appendBodyTypeBits(dst, body)
			}
		}
	}
	return dst
}

func appendBodyTypeBits(dst, body []byte) []byte {
	for len(body) > 0 {
		_, v, rest, ok := nextElement(body)
		if !ok {
			break
		}
		dst = AppendTypeBits(dst, v)
		body = rest
	}
	return dst
}

// TrimTypeBits drops the trailing zero codes of tb, which decode the same
// as missing codes. It returns a prefix of tb; keys whose values all have
// their natural types get empty type bits.
func TrimTypeBits(tb []byte) []byte {
	end := 0
	for i := 0; i < len(tb); {
		if tb[i] == tbDecimal {
			i += 3
			end = min(i, len(tb))
			continue
		}
		if tb[i] != 0 {
			end = i + 1
		}
		i++
	}
	return tb[:end]
}

// typeBitsReader reads codes; past the end every code is 0.
type typeBitsReader struct{ b []byte }

func (r *typeBitsReader) code() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *typeBitsReader) word() (uint16, bool) {
	if len(r.b) < 2 {
		return 0, false
	}
	w := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return w, true
}
