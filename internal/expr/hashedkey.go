package expr

import (
	"crypto/md5"
	"encoding/binary"
	"hash"
	"math"
	"math/big"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// $toHashedIndexKey returns, as a long, the hash mongod's hashed indexes
// store for a value: the first 8 bytes (little-endian) of the MD5 of the
// seed 0 (int32), then the value's canonical type (int32) and its bytes,
// numbers of every type as one int64 (doubles truncated and saturated,
// NaN as 0), documents and arrays element by element with their field
// names and a closing end-of-object. A missing value hashes like
// undefined, as mongod hashes the empty element it builds for one.

func init() {
	register(map[string]opParser{"$toHashedIndexKey": parseToHashedIndexKey})
}

var parseToHashedIndexKey = unary(func(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	return Int64(HashedIndexKey(v)), nil
})

// HashedIndexKey returns the hashed-index hash of v (missing allowed).
func HashedIndexKey(v bsoncore.Value) int64 {
	h := md5.New()
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], 0) // the default seed
	h.Write(b[:4])
	hashElem(h, nil, v, false)
	sum := h.Sum(nil)
	return int64(binary.LittleEndian.Uint64(sum[:8]))
}

// canonicalType is mongod's canonical type number, which puts the numeric
// types (and string and symbol) together.
func canonicalType(t bsoncore.Type) int32 {
	switch t {
	case bsoncore.TypeMinKey:
		return -1
	case bsoncore.TypeMaxKey:
		return 127
	case 0, bsoncore.TypeUndefined:
		return 0
	case bsoncore.TypeNull:
		return 5
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDecimal128:
		return 10
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return 15
	case bsoncore.TypeEmbeddedDocument:
		return 20
	case bsoncore.TypeArray:
		return 25
	case bsoncore.TypeBinary:
		return 30
	case bsoncore.TypeObjectID:
		return 35
	case bsoncore.TypeBoolean:
		return 40
	case bsoncore.TypeDateTime:
		return 45
	case bsoncore.TypeTimestamp:
		return 47
	case bsoncore.TypeRegex:
		return 50
	case bsoncore.TypeDBPointer:
		return 55
	case bsoncore.TypeJavaScript:
		return 60
	case bsoncore.TypeCodeWithScope:
		return 65
	}
	return 0
}

func hashElem(h hash.Hash, name []byte, v bsoncore.Value, withName bool) {
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], uint32(canonicalType(v.Type)))
	h.Write(b[:4])
	if withName {
		h.Write(name)
		h.Write([]byte{0})
	}
	switch {
	case isNum(v):
		binary.LittleEndian.PutUint64(b[:], uint64(hashNumber(v)))
		h.Write(b[:])
	case v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray:
		forEach(v.Data, func(k []byte, x bsoncore.Value) bool {
			hashElem(h, k, x, true)
			return true
		})
		hashElem(h, nil, Missing, true) // the end-of-object element
	default:
		h.Write(v.Data)
	}
}

// hashNumber is the int64 a number hashes as: integers as they are,
// doubles truncated toward zero and saturated (NaN as 0), decimals
// rounded half to even and saturated (NaN as 0).
func hashNumber(v bsoncore.Value) int64 {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return hashInt64(v)
	case bsoncore.TypeDouble:
		f := v.Double()
		switch {
		case math.IsNaN(f):
			return 0
		case f >= 0x1p63:
			return math.MaxInt64
		case f < -0x1p63:
			return math.MinInt64
		}
		return int64(f)
	}
	d := toDec(v)
	switch {
	case d.nan:
		return 0
	case d.inf > 0:
		return math.MaxInt64
	case d.inf < 0:
		return math.MinInt64
	}
	q := decQuantize(d, 0, roundHalfEven)
	i := new(big.Int).Set(q.c)
	if q.e > 0 {
		i.Mul(i, new(big.Int).Exp(bigTen, big.NewInt(int64(q.e)), nil))
	}
	switch {
	case !i.IsInt64() && i.Sign() > 0:
		return math.MaxInt64
	case !i.IsInt64():
		return math.MinInt64
	}
	return i.Int64()
}

func hashInt64(v bsoncore.Value) int64 {
	if v.Type == bsoncore.TypeInt32 {
		return int64(v.Int32())
	}
	return v.Int64()
}
