package bsoncolumn

import (
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// How each BSON type is carried from one value to the next, as mongod does:
// 64-bit numbers (delta, or delta of delta for ObjectId, date and timestamp),
// 128-bit numbers (delta: string and code of at most 16 bytes, binary data of
// at most 16 bytes, decimal128), or only repeats (delta 0) of the last value.

const (
	kindRepeat = iota
	kind64
	kind128
)

func typeKind(t bsoncore.Type) int {
	switch t {
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeBoolean,
		bsoncore.TypeDateTime, bsoncore.TypeTimestamp, bsoncore.TypeObjectID:
		return kind64
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeBinary, bsoncore.TypeDecimal128:
		return kind128
	}
	return kindRepeat
}

func deltaOfDelta(t bsoncore.Type) bool {
	return t == bsoncore.TypeObjectID || t == bsoncore.TypeDateTime || t == bsoncore.TypeTimestamp
}

// Double scaling: a double is carried as an integer v*10^k for the smallest of
// these multipliers that gives back exactly the same bits, or as its raw bits
// (scale index 5) when none does.
var scaleMultiplier = [5]float64{1, 10, 100, 10000, 100000000}

const memoryAsInteger = 5

// controlForScale is the high nibble of a Simple-8b control byte by scale.
var controlForScale = [6]byte{0x90, 0xA0, 0xB0, 0xC0, 0xD0, 0x80}

// scaleForControl maps a control byte's high nibble to a scale index (0xFF: none).
var scaleForControl = [16]uint8{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 5, 0, 1, 2, 3, 4, 0xFF, 0xFF}

const maxSafeDouble = 1 << 53

func encodeDouble(v float64, scale uint8) (int64, bool) {
	if scale == memoryAsInteger {
		return int64(math.Float64bits(v)), true
	}
	m := scaleMultiplier[scale]
	x := v * m
	if !(x >= -maxSafeDouble && x <= maxSafeDouble) {
		return 0, false
	}
	r := int64(math.Round(x))
	if math.Float64bits(float64(r)/m) != math.Float64bits(v) {
		return 0, false
	}
	return r, true
}

func decodeDouble(v int64, scale uint8) float64 {
	if scale == memoryAsInteger {
		return math.Float64frombits(uint64(v))
	}
	return float64(v) / scaleMultiplier[scale]
}

// doubleScale is the smallest scale index that carries v exactly.
func doubleScale(v float64) uint8 {
	for s := uint8(0); s < memoryAsInteger; s++ {
		if _, ok := encodeDouble(v, s); ok {
			return s
		}
	}
	return memoryAsInteger
}

// encodeOID keeps the timestamp and counter bytes of an ObjectId, interleaved
// so that the fast-changing ones are least significant; the five
// process-unique bytes stay with the previous value.
func encodeOID(b []byte) int64 {
	var e [8]byte
	e[0] = b[11]
	e[1] = b[3]
	e[2] = b[10]
	e[3] = b[2]
	e[4] = b[9]
	e[5] = b[1]
	e[6] = b[0]
	return int64(binary.LittleEndian.Uint64(e[:]))
}

func decodeOIDInto(dst []byte, v int64) {
	var e [8]byte
	binary.LittleEndian.PutUint64(e[:], uint64(v))
	dst[0] = e[6]
	dst[1] = e[5]
	dst[2] = e[3]
	dst[3] = e[1]
	dst[9] = e[4]
	dst[10] = e[2]
	dst[11] = e[0]
}

// encode64 returns the integer a 64-bit-kind value is carried as (doubles
// excepted: they depend on the scale).
func encode64(v bsoncore.Value) int64 {
	d := v.Data
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(int32(binary.LittleEndian.Uint32(d)))
	case bsoncore.TypeInt64, bsoncore.TypeDateTime, bsoncore.TypeTimestamp:
		return int64(binary.LittleEndian.Uint64(d))
	case bsoncore.TypeBoolean:
		if d[0] != 0 {
			return 1
		}
		return 0
	case bsoncore.TypeObjectID:
		return encodeOID(d)
	}
	return 0
}

// le128 reads up to 16 bytes as a little-endian 128-bit integer.
func le128(b []byte) u128 {
	var a [16]byte
	copy(a[:], b)
	return u128{binary.LittleEndian.Uint64(a[:8]), binary.LittleEndian.Uint64(a[8:])}
}

// encode128 returns the integer a 128-bit-kind value is carried as, or false
// if it is too long (or, for strings, starts with a NUL byte).
func encode128(v bsoncore.Value) (u128, bool) {
	d := v.Data
	switch v.Type {
	case bsoncore.TypeString, bsoncore.TypeJavaScript:
		s := d[4 : len(d)-1]
		if len(s) > 16 || (len(s) > 0 && s[0] == 0) {
			return u128{}, false
		}
		var a [16]byte
		for i := range s {
			a[i] = s[len(s)-1-i]
		}
		return le128(a[:]), true
	case bsoncore.TypeBinary:
		n := int(binary.LittleEndian.Uint32(d))
		if n > 16 {
			return u128{}, false
		}
		return le128(d[5 : 5+n]), true
	case bsoncore.TypeDecimal128:
		return le128(d[:16]), true
	}
	return u128{}, false
}

func put128(dst []byte, v u128) {
	var a [16]byte
	binary.LittleEndian.PutUint64(a[:8], v.lo)
	binary.LittleEndian.PutUint64(a[8:], v.hi)
	copy(dst, a[:])
}
