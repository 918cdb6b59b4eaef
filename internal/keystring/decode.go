package keystring

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ErrCorrupt is wrapped by every decoding error.
var ErrCorrupt = fmt.Errorf("keystring: corrupt key")

// Decode decodes a key of len(directions) fields (directions[i] is true
// for a descending field) using the key's type bits (nil if all types are
// natural). The key must hold exactly those fields.
func Decode(key []byte, directions []bool, typeBits []byte) ([]bsoncore.Value, error) {
	vals, rest, err := DecodePrefix(key, directions, typeBits)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(rest))
	}
	return vals, nil
}

// DecodePrefix decodes the first len(directions) fields of key and returns
// them with the bytes that follow them (for example a recordID).
func DecodePrefix(key []byte, directions []bool, typeBits []byte) ([]bsoncore.Value, []byte, error) {
	d := decoder{b: key, tb: typeBitsReader{typeBits}}
	vals := make([]bsoncore.Value, len(directions))
	for i, desc := range directions {
		d.inv = 0
		if desc {
			d.inv = 0xFF
		}
		v, err := d.value()
		if err != nil {
			return nil, nil, fmt.Errorf("field %d: %w", i, err)
		}
		vals[i] = v
	}
	return vals, d.b, nil
}

// decoder reads a key; inv is XORed into every byte read.
type decoder struct {
	b   []byte
	inv byte
	tb  typeBitsReader
}

func errCorrupt(what string) error { return fmt.Errorf("%w: %s", ErrCorrupt, what) }

func (d *decoder) byte1() (byte, error) {
	if len(d.b) == 0 {
		return 0, errCorrupt("truncated")
	}
	c := d.b[0] ^ d.inv
	d.b = d.b[1:]
	return c, nil
}

// take returns the next n bytes, un-inverted, in a fresh slice.
func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || len(d.b) < n {
		return nil, errCorrupt("truncated")
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = d.b[i] ^ d.inv
	}
	d.b = d.b[n:]
	return out, nil
}

func (d *decoder) uint32() (uint32, error) {
	b, err := d.take(4)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(b), nil
}

// cstring reads bytes up to a 0x00 terminator.
func (d *decoder) cstring() ([]byte, error) {
	var out []byte
	for {
		c, err := d.byte1()
		if err != nil {
			return nil, err
		}
		if c == 0 {
			return out, nil
		}
		out = append(out, c)
	}
}

// escaped reads a string written by appendEscaped.
func (d *decoder) escaped() ([]byte, error) {
	out := []byte{}
	for {
		c, err := d.byte1()
		if err != nil {
			return nil, err
		}
		if c != 0 {
			out = append(out, c)
			continue
		}
		c, err = d.byte1()
		if err != nil {
			return nil, err
		}
		switch c {
		case 0:
			return out, nil
		case 0xFF:
			out = append(out, 0)
		default:
			return nil, errCorrupt("bad string escape")
		}
	}
}

func (d *decoder) value() (bsoncore.Value, error) {
	t, err := d.byte1()
	if err != nil {
		return bsoncore.Value{}, err
	}
	return d.valueOf(t)
}

func (d *decoder) valueOf(t byte) (bsoncore.Value, error) {
	v := func(typ bsoncore.Type, data []byte) (bsoncore.Value, error) {
		return bsoncore.Value{Type: typ, Data: data}, nil
	}
	switch t {
	case tMinKey:
		return v(bsoncore.TypeMinKey, nil)
	case tMaxKey:
		return v(bsoncore.TypeMaxKey, nil)
	case tUndefined:
		return v(bsoncore.TypeUndefined, nil)
	case tNull:
		return v(bsoncore.TypeNull, nil)
	case tNumNaN, tNumNegInf, tNumNeg, tNumZero, tNumPos, tNumPosInf:
		return d.number(t)
	case tString, tCode:
		s, err := d.escaped()
		if err != nil {
			return bsoncore.Value{}, err
		}
		typ := bsoncore.TypeString
		if t == tCode {
			typ = bsoncore.TypeJavaScript
		} else if d.tb.code() == tbSymbol {
			typ = bsoncore.TypeSymbol
		}
		return v(typ, bsoncore.AppendString(nil, string(s)))
	case tObject:
		doc, err := d.body(true)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return v(bsoncore.TypeEmbeddedDocument, doc)
	case tArray:
		doc, err := d.body(false)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return v(bsoncore.TypeArray, doc)
	case tBinary:
		n, err := d.uint32()
		if err != nil {
			return bsoncore.Value{}, err
		}
		rest, err := d.take(int(n) + 1) // subtype, payload
		if err != nil {
			return bsoncore.Value{}, err
		}
		data := binary.LittleEndian.AppendUint32(nil, n)
		return v(bsoncore.TypeBinary, append(data, rest...))
	case tObjectID:
		b, err := d.take(12)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return v(bsoncore.TypeObjectID, b)
	case tFalse:
		return v(bsoncore.TypeBoolean, []byte{0})
	case tTrue:
		return v(bsoncore.TypeBoolean, []byte{1})
	case tDate:
		b, err := d.take(8)
		if err != nil {
			return bsoncore.Value{}, err
		}
		ms := int64(binary.BigEndian.Uint64(b) ^ 1<<63)
		return v(bsoncore.TypeDateTime, bsoncore.AppendDateTime(nil, ms))
	case tTimestamp:
		b, err := d.take(8)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return v(bsoncore.TypeTimestamp, bsoncore.AppendTimestamp(nil,
			binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])))
	case tRegex:
		p, err := d.cstring()
		if err != nil {
			return bsoncore.Value{}, err
		}
		f, err := d.cstring()
		if err != nil {
			return bsoncore.Value{}, err
		}
		return v(bsoncore.TypeRegex, bsoncore.AppendRegex(nil, string(p), string(f)))
	case tDBPointer:
		n, err := d.uint32()
		if err != nil {
			return bsoncore.Value{}, err
		}
		ns, err := d.take(int(n))
		if err != nil {
			return bsoncore.Value{}, err
		}
		oid, err := d.take(12)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return v(bsoncore.TypeDBPointer, bsoncore.AppendDBPointer(nil, string(ns), bson.ObjectID(oid)))
	case tCodeWScope:
		code, err := d.escaped()
		if err != nil {
			return bsoncore.Value{}, err
		}
		scope, err := d.body(true)
		if err != nil {
			return bsoncore.Value{}, err
		}
		return v(bsoncore.TypeCodeWithScope, bsoncore.AppendCodeWithScope(nil, string(code), scope))
	}
	return bsoncore.Value{}, errCorrupt(fmt.Sprintf("type byte %#x", t))
}

// body reads an object (named) or array body and returns it as a BSON
// document.
func (d *decoder) body(named bool) ([]byte, error) {
	idx, doc := bsoncore.ReserveLength(nil)
	for i := 0; ; i++ {
		b, err := d.byte1()
		if err != nil {
			return nil, err
		}
		if b == tEnd {
			break
		}
		var name []byte
		if named {
			if name, err = d.cstring(); err != nil {
				return nil, err
			}
		} else {
			name = strconv.AppendInt(nil, int64(i), 10)
		}
		ev, err := d.value()
		if err != nil {
			return nil, err
		}
		if bracketByte(ev.Type) != b {
			return nil, errCorrupt("element bracket mismatch")
		}
		doc = bsoncore.AppendHeader(doc, ev.Type, string(name))
		doc = append(doc, ev.Data...)
	}
	doc = append(doc, 0)
	return bsoncore.UpdateLength(doc, idx, int32(len(doc))), nil
}

// number decodes a number whose class byte is cls.
func (d *decoder) number(cls byte) (bsoncore.Value, error) {
	code := d.tb.code()
	var decWord uint16
	if code == tbDecimal {
		w, ok := d.tb.word()
		if !ok {
			return bsoncore.Value{}, errCorrupt("truncated type bits")
		}
		decWord = w
	}
	var n num
	switch cls {
	case tNumNaN:
		n.nan = true
	case tNumNegInf, tNumPosInf:
		n.inf = true
	case tNumZero:
		n.zero = true
	default:
		saved := d.inv
		if cls == tNumNeg {
			d.inv ^= 0xFF
		}
		err := d.magnitude(&n)
		d.inv = saved
		if err != nil {
			return bsoncore.Value{}, err
		}
	}
	n.neg = cls == tNumNeg || cls == tNumNegInf
	return n.value(code, decWord)
}

// num is a decoded number: ±d exactly (tail == false) or
// ±0.digits*10^exp.
type num struct {
	nan, inf, zero, neg bool
	d                   float64
	tail                bool
	digits              []byte // values 0-9
	exp                 int
}

func (d *decoder) magnitude(n *num) error {
	b, err := d.take(8)
	if err != nil {
		return err
	}
	n.d = math.Float64frombits(binary.BigEndian.Uint64(b))
	tie, err := d.byte1()
	if err != nil {
		return err
	}
	switch tie {
	case 0:
		return nil
	case 1:
	default:
		return errCorrupt("bad number tie byte")
	}
	n.tail = true
	e, err := d.take(2)
	if err != nil {
		return err
	}
	n.exp = int(binary.BigEndian.Uint16(e)) - expBias
	for {
		c, err := d.byte1()
		if err != nil {
			return err
		}
		if c == 0 {
			break
		}
		if c > 100 {
			return errCorrupt("bad digit pair")
		}
		c--
		n.digits = append(n.digits, c/10, c%10)
	}
	if k := len(n.digits); k > 0 && n.digits[k-1] == 0 {
		n.digits = n.digits[:k-1]
	}
	if len(n.digits) == 0 {
		return errCorrupt("empty decimal tail")
	}
	return nil
}

// integer returns the value as an int64 if it is an integer in range.
func (n *num) integer() (int64, bool) {
	if n.nan || n.inf {
		return 0, false
	}
	if n.zero {
		return 0, true
	}
	if !n.tail {
		x := n.d
		if n.neg {
			x = -x
		}
		if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<63 {
			return 0, false
		}
		return int64(x), true
	}
	if n.exp < len(n.digits) || n.exp > 19 {
		return 0, false
	}
	var m uint64
	for i := 0; i < n.exp; i++ {
		var c uint64
		if i < len(n.digits) {
			c = uint64(n.digits[i])
		}
		if m > (math.MaxUint64-c)/10 {
			return 0, false
		}
		m = m*10 + c
	}
	if n.neg {
		if m > 1<<63 {
			return 0, false
		}
		return int64(-m), true
	}
	if m >= 1<<63 {
		return 0, false
	}
	return int64(m), true
}

// float returns the value as a double when the key holds one exactly.
func (n *num) float() (float64, bool) {
	var x float64
	switch {
	case n.nan:
		x = math.NaN()
	case n.inf:
		x = math.Inf(1)
	case n.zero:
		x = 0
	case n.tail:
		return 0, false
	default:
		x = n.d
	}
	if n.neg {
		x = -x
	}
	return x, true
}

func (n *num) value(code byte, decWord uint16) (bsoncore.Value, error) {
	switch code {
	case tbNatural:
		if i, ok := n.integer(); ok {
			if i == int64(int32(i)) {
				return bsoncore.Value{Type: bsoncore.TypeInt32, Data: bsoncore.AppendInt32(nil, int32(i))}, nil
			}
			return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, i)}, nil
		}
		if x, ok := n.float(); ok {
			return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, x)}, nil
		}
		// A decimal tail that is neither an int64 nor a double: the
		// decimal with the fewest digits.
		return n.decimal(n.exp-len(n.digits), false)
	case tbInt64:
		i, ok := n.integer()
		if !ok {
			return bsoncore.Value{}, errCorrupt("type bits say int64 for a non-int64")
		}
		return bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, i)}, nil
	case tbDouble, tbNegZero:
		x, ok := n.float()
		if !ok {
			return bsoncore.Value{}, errCorrupt("type bits say double for a non-double")
		}
		if code == tbNegZero {
			x = math.Copysign(0, -1)
		}
		return bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, x)}, nil
	case tbDecimal:
		return n.decimal(int(decWord&0x3FFF)-decExpBias, decWord>>15 == 1)
	}
	return bsoncore.Value{}, errCorrupt(fmt.Sprintf("type bits code %d", code))
}

// decimal returns the value as a decimal128 with exponent q; negZero
// gives a zero its sign.
func (n *num) decimal(q int, negZero bool) (bsoncore.Value, error) {
	mk := func(h, l uint64) (bsoncore.Value, error) {
		return bsoncore.Value{Type: bsoncore.TypeDecimal128, Data: bsoncore.AppendDecimal128(nil, h, l)}, nil
	}
	switch {
	case n.nan:
		return mk(0x7C00000000000000, 0)
	case n.inf && n.neg:
		return mk(0xF800000000000000, 0)
	case n.inf:
		return mk(0x7800000000000000, 0)
	case n.zero:
		h := uint64(q+decExpBias) << 49
		if negZero {
			h |= 1 << 63
		}
		return mk(h, 0)
	}
	digits, exp := n.digits, n.exp
	if !n.tail {
		// An exact double whose value has at most 34 significant digits.
		s := strconv.FormatFloat(n.d, 'e', 33, 64)
		mant, ex, _ := bytes.Cut([]byte(s), []byte("e"))
		e10, err := strconv.Atoi(string(ex))
		if err != nil {
			return bsoncore.Value{}, errCorrupt("double digits")
		}
		digits = nil
		for _, c := range mant {
			if c >= '0' && c <= '9' {
				digits = append(digits, c-'0')
			}
		}
		for len(digits) > 1 && digits[len(digits)-1] == 0 {
			digits = digits[:len(digits)-1]
		}
		exp = e10 + 1
	}
	// value = D * 10^(exp-len(D)) = coef * 10^q
	shift := exp - len(digits) - q
	if shift < 0 || shift > 34 {
		return bsoncore.Value{}, errCorrupt("decimal exponent")
	}
	var sb []byte
	for _, c := range digits {
		sb = append(sb, '0'+c)
	}
	coef, _ := new(big.Int).SetString(string(sb), 10)
	coef.Mul(coef, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	if n.neg {
		coef.Neg(coef)
	}
	dec, ok := bson.ParseDecimal128FromBigInt(coef, q)
	if !ok {
		return bsoncore.Value{}, errCorrupt("decimal out of range")
	}
	h, l := dec.GetBytes()
	return mk(h, l)
}
