package bsonutil

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TypeName returns MongoDB's alias for a BSON type, the name $type accepts
// and error messages print ("double", "objectId", "javascriptWithScope",
// ...). The zero Type, an absent value, is "missing", as mongod names EOO
// (the $type expression of a missing field, error messages on a missing
// operand); a byte that is no BSON type is "invalid".
func TypeName(t bsoncore.Type) string {
	switch t {
	case 0:
		return "missing"
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
	return "invalid"
}

// Style selects the variants of FormatValue's output. The zero Style is
// mongod's BSONElement::toString, the form its error messages quote:
// { a: 1, b: "x" }, [ 1, 2 ], 1.0, nan.0, ObjectId('...'), new Date(ms),
// NumberDecimal("..."), /re/flags, BinData(subtype, HEX).
//
// The other fields keep the output that some messages have always had
// where it departs from mongod; each names who uses it. They are
// candidates for removal once those messages are checked against mongod.
type Style struct {
	// GoNonFinite prints NaN and the infinities as Go does ("NaN",
	// "+Inf", "-Inf") instead of mongod's "nan.0", "inf.0", "-inf.0"
	// (engine and query parser messages).
	GoNonFinite bool
	// FixedIntegral prints an integral double of magnitude below 1e15
	// in fixed notation ("1234567.0", as mongod's %.16g does) where the
	// default is Go's shortest form ("1.234567e+06") (query parser
	// messages).
	FixedIntegral bool
	// JSONCode prints symbols and JavaScript code as extended JSON
	// ({"$symbol":"s"}) instead of a quoted string and the raw code
	// (engine messages).
	JSONCode bool
	// JSONDecimal prints decimals as extended JSON
	// ({"$numberDecimal":"1.5"}) instead of NumberDecimal("1.5")
	// (explain's index bounds).
	JSONDecimal bool
	// JSONOther prints every value other than an int32, int64, double
	// or string as extended JSON (query parser messages).
	JSONOther bool
	// JSON prints every value as extended JSON, and an absent value as
	// "missing" (aggregation expression messages).
	JSON bool
}

// FormatValue renders v in style s.
func FormatValue(v bsoncore.Value, s Style) string {
	var sb strings.Builder
	AppendValue(&sb, v, s)
	return sb.String()
}

// FormatElem renders one element as "name: value".
func FormatElem(name string, v bsoncore.Value, s Style) string {
	var sb strings.Builder
	sb.WriteString(name)
	sb.WriteString(": ")
	AppendValue(&sb, v, s)
	return sb.String()
}

// FormatDoc renders a document: { a: 1, b: "x" }, or {} when empty.
func FormatDoc(d bsoncore.Document, s Style) string {
	var sb strings.Builder
	appendList(&sb, d, false, s)
	return sb.String()
}

// AppendValue writes v in style s to sb.
func AppendValue(sb *strings.Builder, v bsoncore.Value, s Style) {
	if s.JSON {
		if v.Type == 0 {
			sb.WriteString("missing")
		} else {
			sb.WriteString(v.String())
		}
		return
	}
	if s.JSONOther {
		switch v.Type {
		case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeString:
		default:
			sb.WriteString(v.String())
			return
		}
	}
	switch v.Type {
	case bsoncore.TypeDouble:
		appendDouble(sb, v.Double(), s)
	case bsoncore.TypeInt32:
		sb.WriteString(strconv.FormatInt(int64(v.Int32()), 10))
	case bsoncore.TypeInt64:
		sb.WriteString(strconv.FormatInt(v.Int64(), 10))
	case bsoncore.TypeDecimal128:
		if s.JSONDecimal {
			sb.WriteString(v.String())
			return
		}
		sb.WriteString(`NumberDecimal("` + Decimal(v).String() + `")`)
	case bsoncore.TypeString:
		sb.WriteString(strconv.Quote(v.StringValue()))
	case bsoncore.TypeSymbol:
		if s.JSONCode {
			sb.WriteString(v.String())
			return
		}
		sb.WriteString(strconv.Quote(v.Symbol()))
	case bsoncore.TypeJavaScript:
		if s.JSONCode {
			sb.WriteString(v.String())
			return
		}
		sb.WriteString(v.JavaScript())
	case bsoncore.TypeEmbeddedDocument:
		appendList(sb, v.Data, false, s)
	case bsoncore.TypeArray:
		appendList(sb, v.Data, true, s)
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
	default:
		sb.WriteString(v.String())
	}
}

// appendList writes a document ({ a: 1 }) or an array ([ 1 ]).
func appendList(sb *strings.Builder, d bsoncore.Document, array bool, s Style) {
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
		AppendValue(sb, e.Value(), s)
	}
	sb.WriteString(" " + close)
}

// appendDouble writes f as mongod's appendDoubleNice does (a number with
// ".0" appended when it has neither a point nor an exponent), with the
// variants of s.
func appendDouble(sb *strings.Builder, f float64, s Style) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		switch {
		case s.GoNonFinite:
			sb.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		case math.IsNaN(f):
			sb.WriteString("nan.0")
		case f > 0:
			sb.WriteString("inf.0")
		default:
			sb.WriteString("-inf.0")
		}
		return
	}
	if s.FixedIntegral && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		sb.WriteString(strconv.FormatFloat(f, 'f', 1, 64))
		return
	}
	str := strconv.FormatFloat(f, 'g', -1, 64)
	sb.WriteString(str)
	if !strings.ContainsAny(str, ".e") {
		sb.WriteString(".0")
	}
}
