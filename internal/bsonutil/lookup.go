package bsonutil

import (
	"encoding/binary"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// LookupField returns the value of the top-level field key of the BSON
// document doc, or false when the field is absent or the document is
// malformed. It reads the elements in place (ElementAt) without
// allocating: the hot loop of field paths in filters and expressions.
func LookupField(doc []byte, key string) (bsoncore.Value, bool) {
	if len(doc) < 5 || strings.IndexByte(key, 0) >= 0 {
		return bsoncore.Value{}, false
	}
	end := len(doc) - 1
	for i := 4; i < end; {
		el, ok := ElementAt(doc[:end], i)
		if !ok {
			return bsoncore.Value{}, false
		}
		if string(doc[el.Name:el.NameEnd]) == key {
			return el.Value(doc), true
		}
		i = el.End
	}
	return bsoncore.Value{}, false
}

// Element locates one element inside a document's bytes: its type, its
// name at [Name, NameEnd) and its value at [NameEnd+1, End).
type Element struct {
	Type               bsoncore.Type
	Name, NameEnd, End int
}

// Value returns the element's value within doc.
func (e Element) Value(doc []byte) bsoncore.Value {
	return bsoncore.Value{Type: e.Type, Data: doc[e.NameEnd+1 : e.End : e.End]}
}

// ElementAt reads the element of b that starts at offset i (b ends before
// the document's terminating NUL), or false when it is malformed.
func ElementAt(b []byte, i int) (Element, bool) {
	if len(b)-i < 2 {
		return Element{}, false
	}
	t := bsoncore.Type(b[i])
	z := i + 1
	for z < len(b) && b[z] != 0 { // names are short: a loop beats IndexByte
		z++
	}
	if z >= len(b) {
		return Element{}, false
	}
	n := valueSize(t, b[z+1:])
	if n < 0 || z+1+n > len(b) {
		return Element{}, false
	}
	return Element{Type: t, Name: i + 1, NameEnd: z, End: z + 1 + n}, true
}

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

// FirstInt returns the first field named key, at any depth (depth first,
// in field order, arrays included), whose value is a number that
// converts to an integer: how a figure such as totalDocsExamined is read
// from an explain reply, which nests it in its stages. -1 when none.
func FirstInt(doc []byte, key string) int64 {
	elems, err := bsoncore.Document(doc).Elements()
	if err != nil {
		return -1
	}
	for _, e := range elems {
		v := e.Value()
		if e.Key() == key {
			if n, ok := v.AsInt64OK(); ok {
				return n
			}
		}
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
			if n := FirstInt(v.Data, key); n >= 0 {
				return n
			}
		}
	}
	return -1
}
