package update

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// renderDoc renders a document as mongod's BSONObj::toString does, which
// is the form its error messages quote: { a: 1, b: "x" }.
func renderDoc(d bsoncore.Document) string {
	var sb strings.Builder
	writeDoc(&sb, d, false)
	return sb.String()
}

// renderElem renders one element as name: value.
func renderElem(name string, v bsoncore.Value) string {
	var sb strings.Builder
	sb.WriteString(name)
	sb.WriteString(": ")
	writeValue(&sb, v)
	return sb.String()
}

func renderValue(v bsoncore.Value) string {
	var sb strings.Builder
	writeValue(&sb, v)
	return sb.String()
}

func writeDoc(sb *strings.Builder, d bsoncore.Document, array bool) {
	elems, _ := d.Elements()
	open, close := "{", "}"
	if array {
		open, close = "[", "]"
	}
	if len(elems) == 0 {
		sb.WriteString(open + close)
		return
	}
	sb.WriteString(open + " ")
	for i, e := range elems {
		if i > 0 {
			sb.WriteString(", ")
		}
		if !array {
			sb.WriteString(e.Key())
			sb.WriteString(": ")
		}
		writeValue(sb, e.Value())
	}
	sb.WriteString(" " + close)
}

func writeValue(sb *strings.Builder, v bsoncore.Value) {
	switch v.Type {
	case bsoncore.TypeDouble:
		sb.WriteString(formatDouble(v.Double()))
	case bsoncore.TypeInt32:
		sb.WriteString(strconv.FormatInt(int64(v.Int32()), 10))
	case bsoncore.TypeInt64:
		sb.WriteString(strconv.FormatInt(v.Int64(), 10))
	case bsoncore.TypeDecimal128:
		sb.WriteString(`NumberDecimal("` + bsonutil.Decimal(v).String() + `")`)
	case bsoncore.TypeString:
		sb.WriteString(strconv.Quote(v.StringValue()))
	case bsoncore.TypeSymbol:
		sb.WriteString(strconv.Quote(v.Symbol()))
	case bsoncore.TypeEmbeddedDocument:
		writeDoc(sb, v.Document(), false)
	case bsoncore.TypeArray:
		writeDoc(sb, bsoncore.Document(v.Data), true)
	case bsoncore.TypeObjectID:
		oid := v.ObjectID()
		sb.WriteString("ObjectId('" + hex.EncodeToString(oid[:]) + "')")
	case bsoncore.TypeBoolean:
		sb.WriteString(strconv.FormatBool(v.Boolean()))
	case bsoncore.TypeNull:
		sb.WriteString("null")
	case bsoncore.TypeUndefined:
		sb.WriteString("undefined")
	case bsoncore.TypeDateTime:
		sb.WriteString("new Date(" + strconv.FormatInt(v.DateTime(), 10) + ")")
	case bsoncore.TypeTimestamp:
		t, i := v.Timestamp()
		sb.WriteString("Timestamp(" + strconv.FormatUint(uint64(t), 10) + ", " + strconv.FormatUint(uint64(i), 10) + ")")
	case bsoncore.TypeRegex:
		p, o := v.Regex()
		sb.WriteString("/" + p + "/" + o)
	case bsoncore.TypeBinary:
		st, b := v.Binary()
		sb.WriteString("BinData(" + strconv.Itoa(int(st)) + ", " + strings.ToUpper(hex.EncodeToString(b)) + ")")
	case bsoncore.TypeMinKey:
		sb.WriteString("MinKey")
	case bsoncore.TypeMaxKey:
		sb.WriteString("MaxKey")
	case bsoncore.TypeJavaScript:
		sb.WriteString(v.JavaScript())
	default:
		sb.WriteString(v.String())
	}
}

func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan.0"
	case math.IsInf(f, 1):
		return "inf.0"
	case math.IsInf(f, -1):
		return "-inf.0"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// typeName returns mongod's name of a BSON type, as in error messages.
func typeName(t bsoncore.Type) string {
	switch t {
	case bsoncore.TypeDouble:
		return "double"
	case bsoncore.TypeString:
		return "string"
	case bsoncore.TypeEmbeddedDocument:
		return "object"
	case bsoncore.TypeArray:
		return "array"
	case bsoncore.TypeBinary:
		return "binData"
	case bsoncore.TypeUndefined:
		return "undefined"
	case bsoncore.TypeObjectID:
		return "objectId"
	case bsoncore.TypeBoolean:
		return "bool"
	case bsoncore.TypeDateTime:
		return "date"
	case bsoncore.TypeNull:
		return "null"
	case bsoncore.TypeRegex:
		return "regex"
	case bsoncore.TypeDBPointer:
		return "dbPointer"
	case bsoncore.TypeJavaScript:
		return "javascript"
	case bsoncore.TypeSymbol:
		return "symbol"
	case bsoncore.TypeCodeWithScope:
		return "javascriptWithScope"
	case bsoncore.TypeInt32:
		return "int"
	case bsoncore.TypeTimestamp:
		return "timestamp"
	case bsoncore.TypeInt64:
		return "long"
	case bsoncore.TypeDecimal128:
		return "decimal"
	case bsoncore.TypeMinKey:
		return "minKey"
	case bsoncore.TypeMaxKey:
		return "maxKey"
	}
	return "missing"
}
