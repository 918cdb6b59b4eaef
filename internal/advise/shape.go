package advise

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ShapeOf returns a filter's shape in the $queryStats form: literals
// become "?number", "?string", "?date", ...; an array "?array<?type>"
// (or "?array<>" when mixed or empty); implicit equality becomes
// {$eq: ...}; operator documents keep their operators. Recorders that
// build $queryStats-shaped documents (tests, tools) group by it.
func ShapeOf(filter bson.Raw) bson.Raw {
	d := shapeDoc(filter, true)
	b, err := bson.Marshal(d)
	if err != nil {
		return bson.Raw(emptyDoc)
	}
	return b
}

func shapeDoc(doc bson.Raw, top bool) bson.D {
	elems, _ := doc.Elements()
	out := bson.D{}
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		switch {
		case k == "$and" || k == "$or" || k == "$nor":
			arr, _ := v.ArrayOK()
			vals, _ := arr.Values()
			a := bson.A{}
			for _, x := range vals {
				if sub, ok := x.DocumentOK(); ok {
					a = append(a, shapeDoc(sub, true))
				}
			}
			out = append(out, bson.E{Key: k, Value: a})
		case strings.HasPrefix(k, "$") && v.Type == bson.TypeEmbeddedDocument:
			out = append(out, bson.E{Key: k, Value: shapeDoc(v.Document(), false)})
		case strings.HasPrefix(k, "$"):
			out = append(out, bson.E{Key: k, Value: shapeValue(v)})
		case v.Type == bson.TypeEmbeddedDocument && isOperatorDoc(v.Document()):
			out = append(out, bson.E{Key: k, Value: shapeOps(v.Document())})
		default:
			out = append(out, bson.E{Key: k, Value: bson.D{{Key: "$eq", Value: shapeValue(v)}}})
		}
	}
	return out
}

func shapeOps(d bson.Raw) bson.D {
	elems, _ := d.Elements()
	out := bson.D{}
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		switch k {
		case "$elemMatch":
			if sub, ok := v.DocumentOK(); ok {
				if isOperatorDoc(sub) {
					out = append(out, bson.E{Key: k, Value: shapeOps(sub)})
				} else {
					out = append(out, bson.E{Key: k, Value: shapeDoc(sub, false)})
				}
				continue
			}
		case "$all":
			arr, _ := v.ArrayOK()
			vals, _ := arr.Values()
			a := bson.A{}
			for _, x := range vals {
				if sub, ok := x.DocumentOK(); ok && isOperatorDoc(sub) {
					a = append(a, shapeOps(sub))
				} else {
					a = append(a, shapeValue(x))
				}
			}
			out = append(out, bson.E{Key: k, Value: a})
			continue
		}
		out = append(out, bson.E{Key: k, Value: shapeValue(v)})
	}
	return out
}

// shapeValue is the placeholder of a literal.
func shapeValue(v bson.RawValue) string {
	switch v.Type {
	case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128:
		return "?number"
	case bson.TypeString:
		return "?string"
	case bson.TypeDateTime, bson.TypeTimestamp:
		return "?date"
	case bson.TypeBoolean:
		return "?bool"
	case bson.TypeNull, bson.TypeUndefined:
		return "?null"
	case bson.TypeObjectID:
		return "?objectId"
	case bson.TypeArray:
		arr, _ := v.ArrayOK()
		vals, _ := arr.Values()
		inner := ""
		for i, x := range vals {
			t := shapeValue(x)
			if i == 0 {
				inner = t
			} else if t != inner {
				inner = ""
				break
			}
		}
		return fmt.Sprintf("?array<%s>", inner)
	case bson.TypeEmbeddedDocument:
		return "?object"
	case bson.TypeRegex:
		return "?regex"
	case bson.TypeBinary:
		return "?binData"
	}
	return "?" + v.Type.String()
}
