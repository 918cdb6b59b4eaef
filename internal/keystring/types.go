package keystring

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// Type bytes. Their numeric order is MongoDB's canonical type order; the
// gaps leave room for future types.
const (
	tEnd        = 0x04 // end of an object or array body
	tMinKey     = 0x0A
	tUndefined  = 0x0F
	tNull       = 0x14
	tNumNaN     = 0x1E
	tNumNegInf  = 0x1F
	tNumNeg     = 0x20
	tNumZero    = 0x21
	tNumPos     = 0x22
	tNumPosInf  = 0x23
	tString     = 0x3C
	tObject     = 0x46
	tArray      = 0x50
	tBinary     = 0x5A
	tObjectID   = 0x64
	tFalse      = 0x6E
	tTrue       = 0x6F
	tDate       = 0x78
	tTimestamp  = 0x82
	tRegex      = 0x8C
	tDBPointer  = 0x96
	tCode       = 0xA0
	tCodeWScope = 0xAA
	tMaxKey     = 0xF0
	tUnknown    = 0xF8 // a BSON type this package does not know
)

// bracketByte returns the byte that stands for v's type bracket inside an
// object or array, where the bracket is compared before the field name.
// All numbers share one bracket byte, as do false and true.
func bracketByte(t bsoncore.Type) byte {
	switch t {
	case bsoncore.TypeMinKey:
		return tMinKey
	case bsoncore.TypeUndefined:
		return tUndefined
	case bsoncore.TypeNull:
		return tNull
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDecimal128:
		return tNumNaN
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return tString
	case bsoncore.TypeEmbeddedDocument:
		return tObject
	case bsoncore.TypeArray:
		return tArray
	case bsoncore.TypeBinary:
		return tBinary
	case bsoncore.TypeObjectID:
		return tObjectID
	case bsoncore.TypeBoolean:
		return tFalse
	case bsoncore.TypeDateTime:
		return tDate
	case bsoncore.TypeTimestamp:
		return tTimestamp
	case bsoncore.TypeRegex:
		return tRegex
	case bsoncore.TypeDBPointer:
		return tDBPointer
	case bsoncore.TypeJavaScript:
		return tCode
	case bsoncore.TypeCodeWithScope:
		return tCodeWScope
	case bsoncore.TypeMaxKey:
		return tMaxKey
	}
	return tUnknown
}
