// Package queryshape computes query shapes as mongod's query statistics
// do (MongoDB 8.0's queryShape): the query with each literal value
// replaced by a placeholder naming its type ("?number", "?string",
// "?array<?number>", ...) and implicit equality made explicit
// ({a: 5} becomes {a: {$eq: "?number"}}). Field names, operators, sort
// specifications and field paths ("$a" in expressions) are kept.
package queryshape

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Literal returns the placeholder of a literal value.
func Literal(v bsoncore.Value) string {
	switch v.Type {
	case bsoncore.TypeDouble, bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDecimal128:
		return "?number"
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return "?string"
	case bsoncore.TypeDateTime:
		return "?date"
	case bsoncore.TypeBoolean:
		return "?bool"
	case bsoncore.TypeNull:
		return "?null"
	case bsoncore.TypeUndefined:
		return "?undefined"
	case bsoncore.TypeObjectID:
		return "?objectId"
	case bsoncore.TypeEmbeddedDocument:
		return "?object"
	case bsoncore.TypeBinary:
		return "?binData"
	case bsoncore.TypeRegex:
		return "?regex"
	case bsoncore.TypeTimestamp:
		return "?timestamp"
	case bsoncore.TypeMinKey:
		return "?minKey"
	case bsoncore.TypeMaxKey:
		return "?maxKey"
	case bsoncore.TypeJavaScript, bsoncore.TypeCodeWithScope:
		return "?javascript"
	case bsoncore.TypeArray:
		return arrayLiteral(v.Array())
	}
	return "?unknown"
}

// arrayLiteral is "?array<T>" when every element has placeholder T,
// "?array<>" for an empty or mixed array. It walks the array's bytes
// without building a slice of its values: an $in of a million values
// costs no memory here.
func arrayLiteral(a bsoncore.Array) string {
	if len(a) < 5 {
		return "?array<>"
	}
	rem := a[4 : len(a)-1]
	first := ""
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return "?array<>"
		}
		rem = rest
		lit := Literal(el.Value())
		switch {
		case first == "":
			if strings.HasPrefix(lit, "?array") {
				return "?array<>"
			}
			first = lit
		case lit != first:
			return "?array<>"
		}
	}
	if first == "" {
		return "?array<>"
	}
	return "?array<" + first + ">"
}

func str(s string) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, s)}
}

func docVal(d bsoncore.Document) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: d}
}

func arrVal(a bsoncore.Array) bsoncore.Value {
	return bsoncore.Value{Type: bsoncore.TypeArray, Data: a}
}

// isOperatorDoc reports a document whose first field is an operator.
func isOperatorDoc(v bsoncore.Value) (bsoncore.Document, bool) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, false
	}
	el, err := d.IndexErr(0)
	if err != nil {
		return nil, false
	}
	return d, strings.HasPrefix(el.Key(), "$")
}

// Filter returns the shape of a match expression.
func Filter(f bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	elems, _ := f.Elements()
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch k {
		case "$and", "$or", "$nor":
			ab := bsoncore.NewArrayBuilder()
			if arr, ok := v.ArrayOK(); ok {
				vals, _ := arr.Values()
				for _, x := range vals {
					if d, ok := x.DocumentOK(); ok {
						ab.AppendDocument(Filter(d))
					} else {
						ab.AppendString(Literal(x))
					}
				}
			}
			b.AppendArray(k, ab.Build())
		case "$expr":
			b.AppendValue(k, Expr(v))
		case "$comment":
			// Not part of the shape.
		case "$text":
			b.AppendValue(k, operand(v))
		default:
			if strings.HasPrefix(k, "$") {
				b.AppendValue(k, operand(v))
				continue
			}
			if d, ok := isOperatorDoc(v); ok {
				b.AppendDocument(k, operators(d))
			} else if v.Type == bsoncore.TypeRegex {
				b.AppendDocument(k, bsoncore.NewDocumentBuilder().AppendString("$regex", "?regex").Build())
			} else {
				b.AppendDocument(k, bsoncore.NewDocumentBuilder().AppendString("$eq", Literal(v)).Build())
			}
		}
	}
	return b.Build()
}

// operators shapes a field's operator document ({$gt: 5, $lt: 9}).
func operators(d bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	elems, _ := d.Elements()
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch k {
		case "$elemMatch":
			if od, ok := isOperatorDoc(v); ok {
				b.AppendDocument(k, operators(od))
			} else if fd, ok := v.DocumentOK(); ok {
				b.AppendDocument(k, Filter(fd))
			} else {
				b.AppendString(k, Literal(v))
			}
		case "$not":
			if od, ok := isOperatorDoc(v); ok {
				b.AppendDocument(k, operators(od))
			} else {
				b.AppendString(k, Literal(v))
			}
		case "$all":
			// {$all: [{$elemMatch: ...}, ...]} is a conjunction of
			// $elemMatch predicates (mongod parses it into an AND of
			// them): their structure is the shape, not "?array<?object>".
			if arr, ok := v.ArrayOK(); ok && allElemMatch(arr) {
				ab := bsoncore.NewArrayBuilder()
				for _, d := range docs(arr) {
					ab.AppendDocument(operators(d))
				}
				b.AppendArray(k, ab.Build())
			} else {
				b.AppendValue(k, operand(v))
			}
		case "$options":
			b.AppendValue(k, v) // regex flags are part of the shape
		default:
			b.AppendValue(k, operand(v))
		}
	}
	return b.Build()
}

// allElemMatch reports whether a is a non-empty array of {$elemMatch: ...}
// documents.
func allElemMatch(a bsoncore.Array) bool {
	vals, err := a.Values()
	if err != nil || len(vals) == 0 {
		return false
	}
	for _, v := range vals {
		d, ok := v.DocumentOK()
		if !ok {
			return false
		}
		el, err := d.IndexErr(0)
		if err != nil || el.Key() != "$elemMatch" {
			return false
		}
	}
	return true
}

// operand shapes an operator's argument: a literal, or a document of
// literals ($geoWithin's, $text's) shaped field by field.
func operand(v bsoncore.Value) bsoncore.Value {
	if d, ok := v.DocumentOK(); ok {
		b := bsoncore.NewDocumentBuilder()
		elems, _ := d.Elements()
		for _, el := range elems {
			b.AppendValue(el.Key(), operand(el.Value()))
		}
		return docVal(b.Build())
	}
	return str(Literal(v))
}

// Expr shapes an aggregation expression: field paths ("$a") and
// variables ("$$NOW") are kept, other literals replaced; documents and
// arrays (operator arguments) are shaped element by element.
func Expr(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeString:
		if s := v.StringValue(); strings.HasPrefix(s, "$") {
			return v
		}
		return str("?string")
	case bsoncore.TypeEmbeddedDocument:
		d := v.Document()
		if el, err := d.IndexErr(0); err == nil && el.Key() == "$literal" {
			return docVal(bsoncore.NewDocumentBuilder().AppendString("$literal", Literal(el.Value())).Build())
		}
		b := bsoncore.NewDocumentBuilder()
		elems, _ := d.Elements()
		for _, el := range elems {
			b.AppendValue(el.Key(), Expr(el.Value()))
		}
		return docVal(b.Build())
	case bsoncore.TypeArray:
		ab := bsoncore.NewArrayBuilder()
		vals, _ := v.Array().Values()
		for _, x := range vals {
			ab.AppendValue(Expr(x))
		}
		return arrVal(ab.Build())
	}
	return str(Literal(v))
}

// Projection shapes a find projection: inclusions and exclusions become
// true and false, expressions are shaped.
func Projection(p bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	elems, _ := p.Elements()
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch v.Type {
		case bsoncore.TypeBoolean:
			b.AppendBoolean(k, v.Boolean())
		case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
			b.AppendBoolean(k, !isZero(v))
		case bsoncore.TypeEmbeddedDocument:
			if d := v.Document(); d.Lookup("$elemMatch").Type != 0 {
				if fd, ok := d.Lookup("$elemMatch").DocumentOK(); ok {
					b.AppendDocument(k, bsoncore.NewDocumentBuilder().AppendDocument("$elemMatch", Filter(fd)).Build())
					continue
				}
			}
			b.AppendValue(k, Expr(v))
		default:
			b.AppendValue(k, Expr(v))
		}
	}
	return b.Build()
}

func isZero(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeInt32:
		return v.Int32() == 0
	case bsoncore.TypeInt64:
		return v.Int64() == 0
	case bsoncore.TypeDouble:
		return v.Double() == 0
	}
	return false
}

// nameFields are stage arguments that name collections or fields rather
// than hold values: kept as they are.
var nameFields = map[string]bool{"from": true, "as": true, "localField": true, "foreignField": true,
	"connectFromField": true, "connectToField": true, "coll": true, "db": true, "into": true, "path": true,
	"includeArrayIndex": true, "depthField": true, "distanceField": true, "includeLocs": true, "key": true}

// Pipeline shapes an aggregation pipeline stage by stage.
func Pipeline(stages []bsoncore.Document) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for _, st := range stages {
		ab.AppendDocument(Stage(st))
	}
	return ab.Build()
}

// Stage shapes one pipeline stage.
func Stage(st bsoncore.Document) bsoncore.Document {
	el, err := st.IndexErr(0)
	if err != nil {
		return st
	}
	name, v := el.Key(), el.Value()
	b := bsoncore.NewDocumentBuilder()
	switch stageForms[name] {
	case FormFilter:
		if d, ok := v.DocumentOK(); ok {
			return b.AppendDocument(name, Filter(d)).Build()
		}
	case FormVerbatim:
		return b.AppendValue(name, v).Build()
	case FormNumber:
		return b.AppendString(name, "?number").Build()
	case FormProjection:
		if d, ok := v.DocumentOK(); ok {
			return b.AppendDocument(name, Projection(d)).Build()
		}
	case FormArgs:
		if d, ok := v.DocumentOK(); ok {
			return b.AppendDocument(name, stageArgs(d)).Build()
		}
		if v.Type == bsoncore.TypeString { // $unwind: "$a", $unionWith: "coll"
			return b.AppendValue(name, v).Build()
		}
	}
	return b.AppendValue(name, Expr(v)).Build()
}

// stageArgs shapes the arguments of the stages naming collections and
// fields: names kept, sub-pipelines and filters shaped, the rest as
// expressions.
func stageArgs(d bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	elems, _ := d.Elements()
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch {
		case nameFields[k]:
			b.AppendValue(k, v)
		case k == "pipeline" && v.Type == bsoncore.TypeArray:
			b.AppendArray(k, Pipeline(docs(v.Array())))
		case (k == "query" || k == "restrictSearchWithMatch") && v.Type == bsoncore.TypeEmbeddedDocument:
			b.AppendDocument(k, Filter(v.Document()))
		case v.Type == bsoncore.TypeArray && isFacetPipeline(v.Array()):
			b.AppendArray(k, Pipeline(docs(v.Array())))
		default:
			b.AppendValue(k, Expr(v))
		}
	}
	return b.Build()
}

func isFacetPipeline(a bsoncore.Array) bool {
	vals, _ := a.Values()
	if len(vals) == 0 {
		return false
	}
	for _, v := range vals {
		if _, ok := isOperatorDoc(v); !ok {
			return false
		}
	}
	return true
}

func docs(a bsoncore.Array) []bsoncore.Document {
	vals, _ := a.Values()
	out := make([]bsoncore.Document, 0, len(vals))
	for _, v := range vals {
		if d, ok := v.DocumentOK(); ok {
			out = append(out, d)
		}
	}
	return out
}

// Update shapes an update: operator updates field by field ({$set: {a:
// "?number"}}), a replacement's values replaced, a pipeline stage by
// stage.
func Update(v bsoncore.Value) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeArray:
		return arrVal(Pipeline(docs(v.Array())))
	case bsoncore.TypeEmbeddedDocument:
		d := v.Document()
		b := bsoncore.NewDocumentBuilder()
		elems, _ := d.Elements()
		for _, el := range elems {
			if strings.HasPrefix(el.Key(), "$") {
				b.AppendValue(el.Key(), operand(el.Value()))
			} else {
				b.AppendString(el.Key(), Literal(el.Value()))
			}
		}
		return docVal(b.Build())
	}
	return str(Literal(v))
}

// Hash is the queryShapeHash of a shape document: the SHA-256 of its
// BSON, in upper-case hex as mongod prints it.
func Hash(shape bsoncore.Document) string {
	sum := sha256.Sum256(shape)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}
