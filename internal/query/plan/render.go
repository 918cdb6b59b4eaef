package plan

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// BoundsDoc renders index bounds as explain's indexBounds: for each
// field, its intervals as strings in scan order, such as "[5, 5]",
// "(5, inf.0]" or "[MaxKey, MinKey]" for a descending field.
func BoundsDoc(fields []FieldBounds, direction int) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for _, f := range fields {
		ab := bsoncore.NewArrayBuilder()
		for _, s := range IntervalStrings(f, direction) {
			ab.AppendString(s)
		}
		b.AppendArray(f.Path, ab.Build())
	}
	return b.Build()
}

// IntervalStrings renders one field's intervals in scan order.
func IntervalStrings(f FieldBounds, direction int) []string {
	rev := f.Desc != (direction < 0)
	out := make([]string, 0, len(f.OIL))
	for i := range f.OIL {
		iv := f.OIL[i]
		if rev {
			iv = f.OIL[len(f.OIL)-1-i]
			out = append(out, intervalString(iv.Hi, iv.Lo, iv.HiInc, iv.LoInc))
		} else {
			out = append(out, intervalString(iv.Lo, iv.Hi, iv.LoInc, iv.HiInc))
		}
	}
	return out
}

func intervalString(a, b bsoncore.Value, aInc, bInc bool) string {
	var sb strings.Builder
	if aInc {
		sb.WriteByte('[')
	} else {
		sb.WriteByte('(')
	}
	sb.WriteString(ValueString(a))
	sb.WriteString(", ")
	sb.WriteString(ValueString(b))
	if bInc {
		sb.WriteByte(']')
	} else {
		sb.WriteByte(')')
	}
	return sb.String()
}

// ValueString renders a value the way mongod's bounds strings show it.
func ValueString(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeMinKey:
		return "MinKey"
	case bsoncore.TypeMaxKey:
		return "MaxKey"
	case bsoncore.TypeNull:
		return "null"
	case bsoncore.TypeUndefined:
		return "undefined"
	case bsoncore.TypeInt32:
		return strconv.Itoa(int(v.Int32()))
	case bsoncore.TypeInt64:
		return strconv.FormatInt(v.Int64(), 10)
	case bsoncore.TypeDouble:
		f := v.Double()
		switch {
		case math.IsInf(f, 1):
			return "inf.0"
		case math.IsInf(f, -1):
			return "-inf.0"
		case f != f:
			return "nan.0"
		case f == math.Trunc(f) && math.Abs(f) < 1e15:
			return strconv.FormatFloat(f, 'f', 1, 64)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case bsoncore.TypeDecimal128:
		return v.String()
	case bsoncore.TypeString:
		return strconv.Quote(v.StringValue())
	case bsoncore.TypeBoolean:
		if v.Boolean() {
			return "true"
		}
		return "false"
	case bsoncore.TypeObjectID:
		return fmt.Sprintf("ObjectId('%s')", hex.EncodeToString(v.Data[:12]))
	case bsoncore.TypeDateTime:
		return fmt.Sprintf("new Date(%d)", v.DateTime())
	case bsoncore.TypeTimestamp:
		t, i := v.Timestamp()
		return fmt.Sprintf("Timestamp(%d, %d)", t, i)
	case bsoncore.TypeRegex:
		p, o := v.Regex()
		return "/" + p + "/" + o
	case bsoncore.TypeBinary:
		st, data := v.Binary()
		return fmt.Sprintf("BinData(%d, %s)", st, strings.ToUpper(hex.EncodeToString(data)))
	case bsoncore.TypeEmbeddedDocument:
		return docString2(v.Document(), false)
	case bsoncore.TypeArray:
		return docString2(bsoncore.Document(v.Array()), true)
	}
	return v.String()
}

func docString2(d bsoncore.Document, array bool) string {
	elems, _ := d.Elements()
	if len(elems) == 0 {
		if array {
			return "[]"
		}
		return "{}"
	}
	var sb strings.Builder
	if array {
		sb.WriteString("[ ")
	} else {
		sb.WriteString("{ ")
	}
	for i, e := range elems {
		if i > 0 {
			sb.WriteString(", ")
		}
		if !array {
			sb.WriteString(e.Key())
			sb.WriteString(": ")
		}
		sb.WriteString(ValueString(e.Value()))
	}
	if array {
		sb.WriteString(" ]")
	} else {
		sb.WriteString(" }")
	}
	return sb.String()
}
