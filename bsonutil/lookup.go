package bsonutil

import (
	"encoding/binary"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// LookupField returns the value of the top-level field key of the BSON
// document doc, or false when the field is absent or the document is
// malformed. It reads each element's name in place and skips values by
// their encoded length, without allocating: the hot loop of field paths
// in filters and expressions.
func LookupField(doc []byte, key string) (bsoncore.Value, bool) {
	if len(doc) < 5 || strings.IndexByte(key, 0) >= 0 {
		return bsoncore.Value{}, false
	}
	end := len(doc) - 1
	i := 4
	for i < end {
		t := bsoncore.Type(doc[i])
		i++
		// Compare the name in place: key bytes followed by the NUL.
		match := i+len(key) < end && doc[i+len(key)] == 0 && string(doc[i:i+len(key)]) == key
		if match {
			i += len(key) + 1
		} else {
			for i < end && doc[i] != 0 {
				i++
			}
			if i >= end {
				return bsoncore.Value{}, false
			}
			i++
		}
		n := valueSize(t, doc[i:end])
		if n < 0 {
			return bsoncore.Value{}, false
		}
		if match {
			return bsoncore.Value{Type: t, Data: doc[i : i+n : i+n]}, true
		}
		i += n
	}
	return bsoncore.Value{}, false
}

// ValueSize returns the encoded size of a value of type t at the start of
// b, or -1 when b is too short or t is unknown.
func ValueSize(t bsoncore.Type, b []byte) int { return valueSize(t, b) }

// valueSize returns the encoded size of a value of type t at the start of
// b, or -1 when b is too short or t is unknown.
func valueSize(t bsoncore.Type, b []byte) int {
	var n int
	switch t {
	case bsoncore.TypeDouble, bsoncore.TypeDateTime, bsoncore.TypeInt64, bsoncore.TypeTimestamp:
		n = 8
	case bsoncore.TypeInt32:
		n = 4
	case bsoncore.TypeBoolean:
		n = 1
	case bsoncore.TypeNull, bsoncore.TypeUndefined, bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		n = 0
	case bsoncore.TypeObjectID:
		n = 12
	case bsoncore.TypeDecimal128:
		n = 16
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeSymbol:
		if len(b) < 4 {
			return -1
		}
		n = 4 + int(int32(binary.LittleEndian.Uint32(b)))
		if n < 5 {
			return -1
		}
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray, bsoncore.TypeCodeWithScope:
		if len(b) < 4 {
			return -1
		}
		n = int(int32(binary.LittleEndian.Uint32(b)))
		if n < 5 {
			return -1
		}
	case bsoncore.TypeBinary:
		if len(b) < 4 {
			return -1
		}
		n = 5 + int(int32(binary.LittleEndian.Uint32(b)))
		if n < 5 {
			return -1
		}
	case bsoncore.TypeDBPointer:
		if len(b) < 4 {
			return -1
		}
		n = 4 + int(int32(binary.LittleEndian.Uint32(b))) + 12
		if n < 17 {
			return -1
		}
	case bsoncore.TypeRegex:
		z := 0
		for n < len(b) {
			if b[n] == 0 {
				z++
				if z == 2 {
					n++
					break
				}
			}
			n++
		}
		if z < 2 {
			return -1
		}
	default:
		return -1
	}
	if n > len(b) {
		return -1
	}
	return n
}
