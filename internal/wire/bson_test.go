package wire

import (
	"bytes"
	"encoding/binary"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// allTypes returns a document holding one element of every BSON type.
func allTypes() bsoncore.Document {
	idx, b := bsoncore.AppendDocumentStart(nil)
	b = bsoncore.AppendDoubleElement(b, "d", 1.5)
	b = bsoncore.AppendStringElement(b, "s", "str")
	b = bsoncore.AppendDocumentElement(b, "o", doc("x", 1))
	b = bsoncore.AppendArrayElement(b, "a", bsoncore.NewArrayBuilder().AppendInt32(1).AppendString("z").Build())
	b = bsoncore.AppendBinaryElement(b, "bin", 0, []byte{1, 2, 3})
	b = bsoncore.AppendUndefinedElement(b, "u")
	b = bsoncore.AppendObjectIDElement(b, "oid", bson.NewObjectID())
	b = bsoncore.AppendBooleanElement(b, "t", true)
	b = bsoncore.AppendDateTimeElement(b, "dt", 12345)
	b = bsoncore.AppendNullElement(b, "n")
	b = bsoncore.AppendRegexElement(b, "re", "^a", "i")
	b = bsoncore.AppendDBPointerElement(b, "dbp", "c", bson.NewObjectID())
	b = bsoncore.AppendJavaScriptElement(b, "js", "f()")
	b = bsoncore.AppendSymbolElement(b, "sym", "q")
	b = bsoncore.AppendCodeWithScopeElement(b, "cws", "g()", doc("v", 2))
	b = bsoncore.AppendInt32Element(b, "i32", 7)
	b = bsoncore.AppendTimestampElement(b, "ts", 1, 2)
	b = bsoncore.AppendInt64Element(b, "i64", 8)
	b = bsoncore.AppendDecimal128Element(b, "dec", 0, 1)
	b = bsoncore.AppendMinKeyElement(b, "min")
	b = bsoncore.AppendMaxKeyElement(b, "max")
	b, _ = bsoncore.AppendDocumentEnd(b, idx)
	return b
}

func TestValidateDocument(t *testing.T) {
	good := allTypes()
	if err := ValidateDocument(good); err != nil {
		t.Fatalf("all-types document rejected: %v", err)
	}
	if _, err := read(rawMsg(1, 0, bodySection(good))); err != nil {
		t.Fatalf("all-types body rejected: %v", err)
	}
	// Every strict prefix with a patched length must be rejected, never panic.
	for n := 5; n < len(good); n++ {
		b := bytes.Clone(good[:n])
		binary.LittleEndian.PutUint32(b, uint32(n))
		b[n-1] = 0
		if err := ValidateDocument(b); err == nil {
			// A cut exactly at an element boundary is a valid shorter document.
			if _, verr := bsoncore.Document(b).Elements(); verr != nil {
				t.Fatalf("prefix %d accepted but bsoncore rejects it: %v", n, verr)
			}
		}
	}
	cws := bytes.Clone(good)
	i := bytes.Index(cws, []byte("cws\x00")) + 4
	binary.LittleEndian.PutUint32(cws[i:], binary.LittleEndian.Uint32(cws[i:])-1)
	if ValidateDocument(cws) == nil {
		t.Error("code-with-scope with a wrong total length accepted")
	}
	for name, b := range map[string][]byte{
		"short":          {4, 0, 0, 0},
		"length differs": {6, 0, 0, 0, 0},
		"no terminator":  {5, 0, 0, 0, 1},
		"early EOO":      {7, 0, 0, 0, 0, 0, 0},
	} {
		if ValidateDocument(b) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
