package keystring

import (
	"bytes"
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// AppendValue appends the keystring encoding of v to dst and returns the
// extended slice. When descending is true the encoding's bytes are
// complemented, which reverses the field's order. It allocates only to
// grow dst (and, for some decimal128 values, a few temporary big numbers).
func AppendValue(dst []byte, v bsoncore.Value, descending bool) []byte {
	start := len(dst)
	dst = appendValue(dst, v)
	if descending {
		invert(dst[start:])
	}
	return dst
}

// AppendMinKey appends the encoding of the MinKey value in the given
// direction. Ascending it is the smallest field encoding; descending it is
// the largest.
func AppendMinKey(dst []byte, descending bool) []byte {
	return AppendValue(dst, MinKey, descending)
}

// AppendMaxKey appends the encoding of the MaxKey value in the given
// direction. Ascending it is the largest field encoding; descending it is
// the smallest.
func AppendMaxKey(dst []byte, descending bool) []byte {
	return AppendValue(dst, MaxKey, descending)
}

// MinKey and MaxKey are the BSON MinKey and MaxKey values, the lowest and
// highest values of MongoDB's order.
var (
	MinKey = bsoncore.Value{Type: bsoncore.TypeMinKey}
	MaxKey = bsoncore.Value{Type: bsoncore.TypeMaxKey}
)

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

func appendValue(dst []byte, v bsoncore.Value) []byte {
	switch v.Type {
	case bsoncore.TypeMinKey:
		return append(dst, tMinKey)
	case bsoncore.TypeMaxKey:
		return append(dst, tMaxKey)
	case bsoncore.TypeUndefined:
		return append(dst, tUndefined)
	case bsoncore.TypeNull:
		return append(dst, tNull)
	case bsoncore.TypeInt32:
		if x, ok := v.Int32OK(); ok {
			return appendInt(dst, int64(x))
		}
	case bsoncore.TypeInt64:
		if x, ok := v.Int64OK(); ok {
			return appendInt(dst, x)
		}
	case bsoncore.TypeDouble:
		if x, ok := v.DoubleOK(); ok {
			return appendDouble(dst, x)
		}
	case bsoncore.TypeDecimal128:
		if h, l, ok := v.Decimal128OK(); ok {
			return appendDecimal(dst, h, l)
		}
	case bsoncore.TypeString, bsoncore.TypeSymbol, bsoncore.TypeJavaScript:
		if s, ok := stringData(v.Data); ok {
			t := byte(tString)
			if v.Type == bsoncore.TypeJavaScript {
				t = tCode
			}
			return appendEscaped(append(dst, t), s)
		}
	case bsoncore.TypeEmbeddedDocument:
		if body, ok := docBody(v.Data); ok {
			return appendObjectBody(append(dst, tObject), body)
		}
	case bsoncore.TypeArray:
		if body, ok := docBody(v.Data); ok {
			return appendArrayBody(append(dst, tArray), body)
		}
	case bsoncore.TypeBinary:
		if len(v.Data) >= 5 {
			dst = append(dst, tBinary)
			dst = binary.BigEndian.AppendUint32(dst, uint32(len(v.Data)-5))
			return append(dst, v.Data[4:]...) // subtype, payload
		}
	case bsoncore.TypeObjectID:
		if len(v.Data) >= 12 {
			return append(append(dst, tObjectID), v.Data[:12]...)
		}
	case bsoncore.TypeBoolean:
		if b, ok := v.BooleanOK(); ok {
			if b {
				return append(dst, tTrue)
			}
			return append(dst, tFalse)
		}
	case bsoncore.TypeDateTime:
		if d, ok := v.DateTimeOK(); ok {
			return binary.BigEndian.AppendUint64(append(dst, tDate), uint64(d)^(1<<63))
		}
	case bsoncore.TypeTimestamp:
		if t, i, ok := v.TimestampOK(); ok {
			dst = binary.BigEndian.AppendUint32(append(dst, tTimestamp), t)
			return binary.BigEndian.AppendUint32(dst, i)
		}
	case bsoncore.TypeRegex:
		if p, f, ok := v.RegexOK(); ok {
			dst = append(append(dst, tRegex), p...)
			dst = append(append(dst, 0), f...)
			return append(dst, 0)
		}
	case bsoncore.TypeDBPointer:
		if ns, oid, ok := v.DBPointerOK(); ok {
			dst = binary.BigEndian.AppendUint32(append(dst, tDBPointer), uint32(len(ns)))
			dst = append(dst, ns...)
			return append(dst, oid[:]...)
		}
	case bsoncore.TypeCodeWithScope:
		if code, scope, ok := v.CodeWithScopeOK(); ok {
			if body, ok := docBody(scope); ok {
				dst = appendEscaped(append(dst, tCodeWScope), []byte(code))
				return appendObjectBody(dst, body)
			}
		}
	}
	// Unknown type or malformed value: keep it above everything known,
	// ordered by its raw bytes.
	return appendEscaped(append(dst, tUnknown), v.Data)
}

// stringData returns the bytes of a BSON string value (int32 length,
// bytes, NUL).
func stringData(d []byte) ([]byte, bool) {
	if len(d) < 5 {
		return nil, false
	}
	n := int(int32(binary.LittleEndian.Uint32(d)))
	if n < 1 || n > len(d)-4 {
		return nil, false
	}
	return d[4 : 4+n-1], true
}

// docBody returns the elements of a BSON document without its length
// prefix and trailing NUL.
func docBody(d []byte) ([]byte, bool) {
	if len(d) < 5 {
		return nil, false
	}
	n := int(int32(binary.LittleEndian.Uint32(d)))
	if n < 5 || n > len(d) {
		return nil, false
	}
	return d[4 : n-1], true
}

// nextElement splits the first element off a document body.
func nextElement(body []byte) (key []byte, v bsoncore.Value, rest []byte, ok bool) {
	if len(body) == 0 {
		return nil, v, nil, false
	}
	t := bsoncore.Type(body[0])
	i := bytes.IndexByte(body[1:], 0)
	if i < 0 {
		return nil, v, nil, false
	}
	key = body[1 : 1+i]
	v, rest, ok = bsoncore.ReadValue(body[2+i:], t)
	return key, v, rest, ok
}

func appendObjectBody(dst, body []byte) []byte {
	for len(body) > 0 {
		key, v, rest, ok := nextElement(body)
		if !ok {
			break
		}
		dst = append(dst, bracketByte(v.Type))
		dst = append(append(dst, key...), 0)
		dst = appendValue(dst, v)
		body = rest
	}
	return append(dst, tEnd)
}

func appendArrayBody(dst, body []byte) []byte {
	for len(body) > 0 {
		_, v, rest, ok := nextElement(body)
		if !ok {
			break
		}
		dst = append(dst, bracketByte(v.Type))
		dst = appendValue(dst, v)
		body = rest
	}
	return append(dst, tEnd)
}

// appendEscaped appends s with each 0x00 written as 0x00 0xFF, then the
// terminator 0x00 0x00. The terminator sorts below any continuation, so a
// string sorts before every longer string it prefixes.
func appendEscaped(dst, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			dst = append(dst, s...)
			return append(dst, 0, 0)
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0, 0xFF)
		s = s[i+1:]
	}
}

// appendInt appends the encoding of an integer.
func appendInt(dst []byte, i int64) []byte {
	if i == 0 {
		return append(dst, tNumZero)
	}
	m := uint64(i)
	cls := byte(tNumPos)
	if i < 0 {
		m = -m
		cls = tNumNeg
	}
	dst = append(dst, cls)
	start := len(dst)
	dst = appendUintMagnitude(dst, m)
	if cls == tNumNeg {
		invert(dst[start:])
	}
	return dst
}

// appendUintMagnitude appends the magnitude body of m > 0.
func appendUintMagnitude(dst []byte, m uint64) []byte {
	if m <= 1<<53 {
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(float64(m)))
		return append(dst, 0)
	}
	f := float64(m) // nearest; at most 2^63
	if uint64(f) > m {
		f = math.Nextafter(f, 0)
	}
	dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(f))
	if uint64(f) == m {
		return append(dst, 0)
	}
	var buf [20]byte
	digits := appendDigits(buf[:0], m)
	e := len(digits)
	for digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	return appendTail(append(dst, 1), digits, e)
}

// appendDigits appends the decimal digits (values 0-9) of m > 0.
func appendDigits(dst []byte, m uint64) []byte {
	start := len(dst)
	for m > 0 {
		dst = append(dst, byte(m%10))
		m /= 10
	}
	d := dst[start:]
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
	return dst
}

// expBias biases the decimal exponent of a tail into an unsigned 16 bits.
const expBias = 0x8000

// appendTail appends the decimal tail for 0.digits * 10^e. digits are
// values 0-9 with a non-zero first and last digit.
func appendTail(dst, digits []byte, e int) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(e+expBias))
	for i := 0; i < len(digits); i += 2 {
		b := 1 + 10*digits[i]
		if i+1 < len(digits) {
			b += digits[i+1]
		}
		dst = append(dst, b)
	}
	return append(dst, 0)
}

// appendDouble appends the encoding of a double.
func appendDouble(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, tNumNaN)
	case math.IsInf(x, 1):
		return append(dst, tNumPosInf)
	case math.IsInf(x, -1):
		return append(dst, tNumNegInf)
	case x == 0:
		return append(dst, tNumZero)
	case x > 0:
		dst = binary.BigEndian.AppendUint64(append(dst, tNumPos), math.Float64bits(x))
		return append(dst, 0)
	}
	dst = binary.BigEndian.AppendUint64(append(dst, tNumNeg), ^math.Float64bits(-x))
	return append(dst, 0xFF)
}
