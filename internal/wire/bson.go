package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// MaxBSONDepth is the deepest nesting of documents and arrays accepted, as
// mongod's default maximum BSON depth.
const MaxBSONDepth = 200

// readDocument slices one BSON document off the front of b, checks its size
// and validates it fully. what names the document in error messages. The
// returned document's capacity is clipped to its length so that appending to
// it never overwrites the message buffer.
func readDocument(b []byte, what string) (bsoncore.Document, []byte, *ProtocolError) {
	var sh shape
	return readDocumentShape(b, what, &sh)
}

// shape is what the validating pass learns of the documents it reads.
type shape struct {
	// deepest is the nesting depth reached: 0 for a document without
	// embedded documents or arrays, and one more for each level of them
	// (empty ones included).
	deepest int
	// zeroTS: some value is a Timestamp(0, 0), at any depth (an insert
	// replaces the top-level ones with the time).
	zeroTS bool
	// idNotFirst: some top-level document does not have _id as its first
	// field and nowhere else at its top level (an insert moves or adds
	// the _id, or refuses a second one, only then).
	idNotFirst bool
}

// readDocumentShape is readDocument that also merges the document's
// shape into *sh.
func readDocumentShape(b []byte, what string, sh *shape) (bsoncore.Document, []byte, *ProtocolError) {
	if len(b) < 4 {
		return nil, nil, badMessage(errs.InvalidBSON,
			"%s: need 4 bytes for a BSON length, %d left", what, len(b))
	}
	n := int64(int32(binary.LittleEndian.Uint32(b)))
	if n > MaxInternalBSONObjectSize {
		return nil, nil, bsonSizeError(int(n))
	}
	if n < 5 {
		return nil, nil, badMessage(errs.InvalidBSON, "%s: invalid BSON length %d", what, n)
	}
	if n > int64(len(b)) {
		return nil, nil, badMessage(errs.InvalidBSON,
			"%s: BSON length %d exceeds the %d bytes left in the section", what, n, len(b))
	}
	doc := bsoncore.Document(b[:n:n])
	// validateBSON is stricter than bsoncore's Document.Validate at
	// every level (FuzzReadMessage checks that what it accepts passes
	// that), so the latter is not run again.
	if err := validateBSON(doc, 0, sh); err != nil {
		return nil, nil, badMessage(errs.InvalidBSON, "%s: invalid BSON: %v", what, err)
	}
	return doc, b[n:], nil
}

// bsonError is a validation failure.
type bsonError string

func (e bsonError) Error() string { return string(e) }

// ValidateDocument checks that doc is exactly one well-formed BSON document,
// recursively: lengths, terminators, known element types, booleans 0 or 1,
// code-with-scope layout and a nesting depth of at most MaxBSONDepth.
// Unlike bsoncore.Document.Validate it descends into embedded documents and
// arrays. It does not check UTF-8, as mongod does not by default.
func ValidateDocument(doc []byte) error {
	if len(doc) < 5 {
		return bsonError("document shorter than 5 bytes")
	}
	if int64(int32(binary.LittleEndian.Uint32(doc))) != int64(len(doc)) {
		return bsonError("document length does not match its size")
	}
	var sh shape
	return validateBSON(doc, 0, &sh)
}

// validateBSON validates a document whose length prefix is known to equal
// len(doc) and to be at least 5, at the given depth, merging its shape
// into *sh.
func validateBSON(doc []byte, depth int, sh *shape) error {
	if depth > MaxBSONDepth {
		return bsonError(fmt.Sprintf("exceeded maximum nested object depth: %d", MaxBSONDepth))
	}
	if depth > sh.deepest {
		sh.deepest = depth
	}
	end := len(doc) - 1
	if doc[end] != 0 {
		return bsonError("document not terminated with EOO")
	}
	p := 4
	if depth == 0 && p == end {
		sh.idNotFirst = true // an empty document: no _id
	}
	for p < end {
		t := bsoncore.Type(doc[p])
		p++
		if t == 0 {
			return bsonError("unexpected EOO before the end of the document")
		}
		k := bytes.IndexByte(doc[p:end], 0)
		if k < 0 {
			return bsonError("field name not terminated")
		}
		if depth == 0 && (p == 5) != (k == 3 && string(doc[p:p+3]) == "_id") {
			// The first field is not _id, or a later one is.
			sh.idNotFirst = true
		}
		p += k + 1
		n, err := valueSize(t, doc[p:end], depth, sh)
		if err != nil {
			return err
		}
		p += n
	}
	return nil
}

// int32At reads a little-endian int32 at b[0:4], reporting whether b holds it.
func int32At(b []byte) (int, bool) {
	if len(b) < 4 {
		return 0, false
	}
	return int(int32(binary.LittleEndian.Uint32(b))), true
}

// stringSize returns the size of a BSON string (length prefix, bytes, NUL)
// at the start of b.
func stringSize(b []byte) (int, error) {
	l, ok := int32At(b)
	if !ok || l < 1 || l > len(b)-4 {
		return 0, bsonError("invalid string length")
	}
	if b[4+l-1] != 0 {
		return 0, bsonError("string not NUL-terminated")
	}
	return 4 + l, nil
}

// subDocSize validates the embedded document at the start of b and returns
// its size.
func subDocSize(b []byte, depth int, sh *shape) (int, error) {
	l, ok := int32At(b)
	if !ok || l < 5 || l > len(b) {
		return 0, bsonError("invalid embedded document length")
	}
	if err := validateBSON(b[:l], depth+1, sh); err != nil {
		return 0, err
	}
	return l, nil
}

// fixed returns n if b holds at least n bytes.
func fixed(b []byte, n int) (int, error) {
	if len(b) < n {
		return 0, bsonError("value truncated")
	}
	return n, nil
}

// valueSize validates the value of type t at the start of b and returns its
// size in bytes.
func valueSize(t bsoncore.Type, b []byte, depth int, sh *shape) (int, error) {
	switch t {
	case bsoncore.TypeDouble, bsoncore.TypeDateTime, bsoncore.TypeInt64:
		return fixed(b, 8)
	case bsoncore.TypeTimestamp:
		if len(b) < 8 {
			return 0, bsonError("value truncated")
		}
		if binary.LittleEndian.Uint64(b) == 0 {
			sh.zeroTS = true
		}
		return 8, nil
	case bsoncore.TypeInt32:
		return fixed(b, 4)
	case bsoncore.TypeDecimal128:
		return fixed(b, 16)
	case bsoncore.TypeObjectID:
		return fixed(b, 12)
	case bsoncore.TypeNull, bsoncore.TypeUndefined, bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		return 0, nil
	case bsoncore.TypeBoolean:
		if len(b) < 1 {
			return 0, bsonError("value truncated")
		}
		if b[0] > 1 {
			return 0, bsonError("BSON bool is neither false nor true")
		}
		return 1, nil
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeSymbol:
		return stringSize(b)
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		return subDocSize(b, depth, sh)
	case bsoncore.TypeBinary:
		l, ok := int32At(b)
		if !ok || l < 0 || l > len(b)-5 {
			return 0, bsonError("invalid binary length")
		}
		return 5 + l, nil
	case bsoncore.TypeRegex:
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return 0, bsonError("regex pattern not terminated")
		}
		j := bytes.IndexByte(b[i+1:], 0)
		if j < 0 {
			return 0, bsonError("regex options not terminated")
		}
		return i + 1 + j + 1, nil
	case bsoncore.TypeDBPointer:
		n, err := stringSize(b)
		if err != nil {
			return 0, err
		}
		if len(b)-n < 12 {
			return 0, bsonError("value truncated")
		}
		return n + 12, nil
	case bsoncore.TypeCodeWithScope:
		total, ok := int32At(b)
		if !ok || total < 14 || total > len(b) {
			return 0, bsonError("invalid code with scope length")
		}
		inner := b[4:total]
		n, err := stringSize(inner)
		if err != nil {
			return 0, err
		}
		m, err := subDocSize(inner[n:], depth, sh)
		if err != nil {
			return 0, err
		}
		if n+m != len(inner) {
			return 0, bsonError("code with scope length mismatch")
		}
		return total, nil
	}
	return 0, bsonError(fmt.Sprintf("unknown BSON type 0x%02x", byte(t)))
}
