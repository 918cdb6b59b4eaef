package engine

import (
	"encoding/hex"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// renderDoc renders doc the way mongod's BSONObj::toString does in error
// messages: { a: 1, b: "x" }.
func renderDoc(d bsoncore.Document) string {
	var sb strings.Builder
	renderDocTo(&sb, d)
	return sb.String()
}

func renderDocTo(sb *strings.Builder, d bsoncore.Document) {
	elems, _ := d.Elements()
	if len(elems) == 0 {
		sb.WriteString("{}")
		return
	}
	sb.WriteString("{ ")
	for i, e := range elems {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(e.Key())
		sb.WriteString(": ")
		renderValueTo(sb, e.Value())
	}
	sb.WriteString(" }")
}

func renderValueTo(sb *strings.Builder, v bsoncore.Value) {
	switch v.Type {
	case bsoncore.TypeString:
		sb.WriteString(strconv.Quote(v.StringValue()))
	case bsoncore.TypeInt32:
		sb.WriteString(strconv.FormatInt(int64(v.Int32()), 10))
	case bsoncore.TypeInt64:
		sb.WriteString(strconv.FormatInt(v.Int64(), 10))
	case bsoncore.TypeDouble:
		f := v.Double()
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
		sb.WriteString(s)
	case bsoncore.TypeDecimal128:
		h, l := v.Decimal128()
		sb.WriteString(`NumberDecimal("` + bson.NewDecimal128(h, l).String() + `")`)
	case bsoncore.TypeObjectID:
		sb.WriteString("ObjectId('" + bson.ObjectID(v.ObjectID()).Hex() + "')")
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
	case bsoncore.TypeEmbeddedDocument:
		renderDocTo(sb, v.Document())
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		if len(vals) == 0 {
			sb.WriteString("[]")
			return
		}
		sb.WriteString("[ ")
		for i, x := range vals {
			if i > 0 {
				sb.WriteString(", ")
			}
			renderValueTo(sb, x)
		}
		sb.WriteString(" ]")
	case bsoncore.TypeRegex:
		p, o := v.Regex()
		sb.WriteString("/" + p + "/" + o)
	case bsoncore.TypeBinary:
		st, data := v.Binary()
		sb.WriteString("BinData(" + strconv.Itoa(int(st)) + ", " + strings.ToUpper(hex.EncodeToString(data)) + ")")
	case bsoncore.TypeMinKey:
		sb.WriteString("MinKey")
	case bsoncore.TypeMaxKey:
		sb.WriteString("MaxKey")
	default:
		sb.WriteString(v.String())
	}
}

// dupKeyError builds MongoDB's E11000 error for a conflict on ix.
func dupKeyError(c *collection, ix *index, keyValue bsoncore.Document) *errs.Error {
	e := errs.New(errs.DuplicateKey, "E11000 duplicate key error collection: %s index: %s dup key: %s",
		c.ns(), ix.name, renderDoc(keyValue))
	e.Info = bsoncore.NewDocumentBuilder().
		AppendDocument("keyPattern", ix.key).
		AppendDocument("keyValue", keyValue).
		Build()
	return e
}

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
	return t.String()
}
