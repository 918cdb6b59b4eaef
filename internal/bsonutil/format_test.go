package bsonutil

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TypeName gives MongoDB's $type aliases; an absent value is "missing".
func TestTypeName(t *testing.T) {
	want := map[bsoncore.Type]string{
		0: "missing", bsoncore.TypeDouble: "double", bsoncore.TypeString: "string",
		bsoncore.TypeEmbeddedDocument: "object", bsoncore.TypeArray: "array", bsoncore.TypeBinary: "binData",
		bsoncore.TypeUndefined: "undefined", bsoncore.TypeObjectID: "objectId", bsoncore.TypeBoolean: "bool",
		bsoncore.TypeDateTime: "date", bsoncore.TypeNull: "null", bsoncore.TypeRegex: "regex",
		bsoncore.TypeDBPointer: "dbPointer", bsoncore.TypeJavaScript: "javascript", bsoncore.TypeSymbol: "symbol",
		bsoncore.TypeCodeWithScope: "javascriptWithScope", bsoncore.TypeInt32: "int", bsoncore.TypeTimestamp: "timestamp",
		bsoncore.TypeInt64: "long", bsoncore.TypeDecimal128: "decimal", bsoncore.TypeMinKey: "minKey", bsoncore.TypeMaxKey: "maxKey",
	}
	for typ, name := range want {
		if got := TypeName(typ); got != name {
			t.Errorf("TypeName(%#x) = %q, want %q", byte(typ), got, name)
		}
	}
}

// The zero Style is mongod's BSONObj::toString: { a: 1, b: "x" }, doubles
// with a decimal point, nan.0.
func TestFormatMongodStyle(t *testing.T) {
	d := bsoncore.NewDocumentBuilder().
		AppendInt32("a", 1).
		AppendString("b", "x").
		AppendDouble("c", 2).
		AppendDouble("n", math.NaN()).
		AppendArray("arr", bsoncore.NewArrayBuilder().AppendInt64(3).AppendBoolean(true).Build()).
		AppendDocument("e", bsoncore.NewDocumentBuilder().Build()).
		AppendNull("z").
		Build()
	want := `{ a: 1, b: "x", c: 2.0, n: nan.0, arr: [ 3, true ], e: {}, z: null }`
	if got := FormatDoc(d, Style{}); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	v := bsoncore.Value{Type: bsoncore.TypeDouble, Data: bsoncore.AppendDouble(nil, 1234567)}
	if got := FormatElem("k", v, Style{FixedIntegral: true}); got != "k: 1234567.0" {
		t.Errorf("FixedIntegral: %s", got)
	}
	if got := FormatValue(bsoncore.Value{}, Style{JSON: true}); got != "missing" {
		t.Errorf("JSON missing: %s", got)
	}
}
