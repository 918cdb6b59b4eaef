package query

import (
	"encoding/binary"
	"errors"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// errBadBSON reports malformed BSON.
var errBadBSON = errors.New("malformed BSON")

// maxValidateDepth bounds document nesting during validation.
const maxValidateDepth = 200

// validateDoc checks that b is a well-formed BSON document, strictly
// enough that the driver's value accessors cannot panic on it (the
// driver's own Validate does not check string terminators).
func validateDoc(b []byte) error { return validateDocDepth(b, 0) }

func validateDocDepth(b []byte, depth int) error {
	if depth > maxValidateDepth {
		return errors.New("document nested too deeply")
	}
	if len(b) < 5 {
		return errBadBSON
	}
	n := int(int32(binary.LittleEndian.Uint32(b)))
	if n != len(b) || b[n-1] != 0 {
		return errBadBSON
	}
	rest := b[4 : n-1]
	for len(rest) > 0 {
		t := bsoncore.Type(rest[0])
		rest = rest[1:]
		i := indexNul(rest)
		if i < 0 {
			return errBadBSON
		}
		rest = rest[i+1:]
		size, err := valueSize(t, rest, depth)
		if err != nil {
			return err
		}
		rest = rest[size:]
	}
	return nil
}

func indexNul(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

func int32At(b []byte) (int, bool) {
	if len(b) < 4 {
		return 0, false
	}
	return int(int32(binary.LittleEndian.Uint32(b))), true
}

// stringSize checks a length-prefixed, NUL-terminated string.
func stringSize(b []byte) (int, error) {
	n, ok := int32At(b)
	if !ok || n < 1 || 4+n > len(b) || b[3+n] != 0 {
		return 0, errBadBSON
	}
	return 4 + n, nil
}

func valueSize(t bsoncore.Type, b []byte, depth int) (int, error) {
	fixed := func(n int) (int, error) {
		if len(b) < n {
			return 0, errBadBSON
		}
		return n, nil
	}
	switch t {
	case bsoncore.TypeDouble, bsoncore.TypeDateTime, bsoncore.TypeTimestamp, bsoncore.TypeInt64:
		return fixed(8)
	case bsoncore.TypeInt32:
		return fixed(4)
	case bsoncore.TypeDecimal128:
		return fixed(16)
	case bsoncore.TypeObjectID:
		return fixed(12)
	case bsoncore.TypeBoolean:
		if len(b) < 1 || b[0] > 1 {
			return 0, errBadBSON
		}
		return 1, nil
	case bsoncore.TypeNull, bsoncore.TypeUndefined, bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		return 0, nil
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeSymbol:
		return stringSize(b)
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		n, ok := int32At(b)
		if !ok || n < 5 || n > len(b) {
			return 0, errBadBSON
		}
		if err := validateDocDepth(b[:n], depth+1); err != nil {
			return 0, err
		}
		return n, nil
	case bsoncore.TypeBinary:
		n, ok := int32At(b)
		if !ok || n < 0 || 5+n > len(b) {
			return 0, errBadBSON
		}
		if b[4] == 2 { // old binary: inner length
			m, ok := int32At(b[5:])
			if !ok || m != n-4 {
				return 0, errBadBSON
			}
		}
		return 5 + n, nil
	case bsoncore.TypeRegex:
		i := indexNul(b)
		if i < 0 {
			return 0, errBadBSON
		}
		j := indexNul(b[i+1:])
		if j < 0 {
			return 0, errBadBSON
		}
		return i + 1 + j + 1, nil
	case bsoncore.TypeDBPointer:
		n, err := stringSize(b)
		if err != nil || n+12 > len(b) {
			return 0, errBadBSON
		}
		return n + 12, nil
	case bsoncore.TypeCodeWithScope:
		total, ok := int32At(b)
		if !ok || total < 14 || total > len(b) {
			return 0, errBadBSON
		}
		n, err := stringSize(b[4:total])
		if err != nil {
			return 0, err
		}
		scope := b[4+n : total]
		if err := validateDocDepth(scope, depth+1); err != nil {
			return 0, err
		}
		return total, nil
	}
	return 0, errBadBSON
}
