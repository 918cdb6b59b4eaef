package engine

import (
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/bsonutil"
)

// appendKey appends the index key encoding of v. It is the single point
// where the engine encodes index keys.
//
// TODO(keystring): switch to keystring.AppendValue once package keystring
// lands; until then this interim encoding keeps equal values (1, 1.0,
// NumberLong(1)) equal and orders numbers and strings correctly, which is
// all the _id index and uniqueness need.
func appendKey(dst []byte, v bsoncore.Value, desc bool) []byte {
	start := len(dst)
	dst = append(dst, byte(bsonutil.TypeOrder(v.Type)))
	switch {
	case bsonutil.IsNumber(v.Type):
		f := bsonutil.AsFloat64(v)
		if f == 0 {
			f = 0 // normalize -0
		}
		bits := math.Float64bits(f)
		if f < 0 || (f == 0 && math.Signbit(f)) {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		dst = binary.BigEndian.AppendUint64(dst, bits)
	case v.Type == bsoncore.TypeString || v.Type == bsoncore.TypeSymbol:
		s, _ := v.StringValueOK()
		if v.Type == bsoncore.TypeSymbol {
			s, _ = v.SymbolOK()
		}
		for i := 0; i < len(s); i++ {
			dst = append(dst, s[i])
			if s[i] == 0 {
				dst = append(dst, 0xff)
			}
		}
		dst = append(dst, 0, 0)
	case v.Type == bsoncore.TypeNull || v.Type == bsoncore.TypeUndefined ||
		v.Type == bsoncore.TypeMinKey || v.Type == bsoncore.TypeMaxKey:
	case v.Type == bsoncore.TypeBoolean:
		if v.Boolean() {
			dst = append(dst, 1)
		} else {
			dst = append(dst, 0)
		}
	case v.Type == bsoncore.TypeDateTime:
		dst = binary.BigEndian.AppendUint64(dst, uint64(v.DateTime())^(1<<63))
	default:
		dst = append(dst, byte(v.Type))
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v.Data)))
		dst = append(dst, v.Data...)
	}
	if desc {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}
