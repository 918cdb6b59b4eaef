package queryshape

import (
	"hash/maphash"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// WriteStructure writes into h what Filter's, Update's (for an operator
// or replacement document) and Projection's shape of d can depend on:
// the field names, the type of every value, the nesting, and the strings
// that a shape keeps ("$path" references, $options). Literal values
// are left out, so statements differing only in their values write the
// same bytes. It writes more than the shape needs (equal shapes may
// write different bytes, e.g. arrays of different lengths), never less:
// equal bytes mean equal shapes. It allocates nothing, which lets the
// server find a known shape without computing it.
func WriteStructure(h *maphash.Hash, d bsoncore.Document) {
	if len(d) < 5 {
		return
	}
	writeElems(h, d[4:len(d)-1])
}

func writeElems(h *maphash.Hash, rem []byte) {
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			h.WriteByte(0xff)
			return
		}
		rem = rest
		t := el[0]
		key := keyBytes(el)
		h.WriteByte(t)
		h.Write(key)
		h.WriteByte(0)
		v := el.Value()
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
			h.WriteByte('{')
			if len(v.Data) >= 5 {
				writeElems(h, v.Data[4:len(v.Data)-1])
			}
			h.WriteByte('}')
		case bsoncore.TypeString:
			if len(v.Data) > 4 {
				s := v.Data[4 : len(v.Data)-1]
				if (len(s) > 0 && s[0] == '$') || string(key) == "$options" {
					h.Write(s)
				}
			}
		case bsoncore.TypeBoolean, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble:
			// A projection's 0/1, true/false are part of its shape.
			if isZero(v) || (v.Type == bsoncore.TypeBoolean && !v.Boolean()) {
				h.WriteByte('0')
			} else {
				h.WriteByte('1')
			}
		}
	}
}

// keyBytes is an element's key without copying it.
func keyBytes(el bsoncore.Element) []byte {
	for i := 1; i < len(el); i++ {
		if el[i] == 0 {
			return el[1:i]
		}
	}
	return nil
}
