package query

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
)

// FailureDetails describes why doc does not match f, in the shape mongod
// (5.0+) gives a document validation failure's errInfo.details:
// {operatorName, clausesNotSatisfied: [{index, details}]} for $and and
// $or, {operatorName, specifiedAs, reason, consideredValue(s)} for
// comparisons, $in, $regex, $type and $exists, and $jsonSchema's
// schemaRulesNotSatisfied (jsonschema_explain.go). Other operators get
// operatorName and specifiedAs.
func (f *Filter) FailureDetails(doc bsoncore.Document) bsoncore.Document {
	return failureDetails(f.root, doc)
}

func failureDetails(n Node, doc bsoncore.Document) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	switch x := n.(type) {
	case *AndNode:
		b.AppendString("operatorName", "$and")
		b.AppendArray("clausesNotSatisfied", failingClauses(x.Children, doc, false))
		return b.Build()
	case *OrNode:
		b.AppendString("operatorName", "$or")
		b.AppendArray("clausesNotSatisfied", failingClauses(x.Children, doc, false))
		return b.Build()
	case *NorNode:
		b.AppendString("operatorName", "$nor")
		b.AppendArray("clausesNotSatisfied", failingClauses(x.Children, doc, true))
		return b.Build()
	case *JSONSchemaNode:
		return x.failureDetails(doc)
	}
	sb := bsoncore.NewDocumentBuilder()
	n.serialize(sb, true)
	spec := sb.Build()
	b.AppendString("operatorName", operatorName(spec))
	b.AppendDocument("specifiedAs", spec)
	switch x := n.(type) {
	case *ExprNode:
		b.AppendString("reason", "expression did not match")
		b.AppendBoolean("expressionResult", false)
	case *ExistsNode:
		b.AppendString("reason", "path does not exist")
	case *CompareNode:
		appendConsidered(b, doc, x.pathed, "comparison failed", false)
	case *InNode:
		appendConsidered(b, doc, x.pathed, "no matching value found in array", false)
	case *RegexNode:
		appendConsidered(b, doc, x.pathed, "regular expression did not match", false)
	case *TypeNode:
		appendConsidered(b, doc, x.pathed, "type did not match", true)
	}
	return b.Build()
}

// appendConsidered appends the reason a path predicate failed and the
// value(s) it considered at its path: reason "field was missing" when
// there is none; an array is considered with its elements
// (consideredValues), as mongod does. withType adds consideredType(s).
func appendConsidered(b *bsoncore.DocumentBuilder, doc bsoncore.Document, p pathed, reason string, withType bool) {
	if p.Path == "" {
		return
	}
	v, err := doc.LookupErr(p.parts...)
	if err != nil {
		b.AppendString("reason", "field was missing")
		return
	}
	b.AppendString("reason", reason)
	if v.Type != bsoncore.TypeArray {
		b.AppendValue("consideredValue", v)
		if withType {
			b.AppendString("consideredType", bsonutil.TypeName(v.Type))
		}
		return
	}
	vals, _ := v.Array().Values()
	ab := bsoncore.NewArrayBuilder()
	tb := bsoncore.NewArrayBuilder()
	seen := map[string]bool{}
	for _, e := range append(vals, v) {
		ab.AppendValue(e)
		if t := bsonutil.TypeName(e.Type); !seen[t] {
			seen[t] = true
			tb.AppendString(t)
		}
	}
	b.AppendArray("consideredValues", ab.Build())
	if withType {
		b.AppendArray("consideredTypes", tb.Build())
	}
}

// failingClauses lists {index, details} of the children of a logical
// node that do not match doc (for $nor: that do match).
func failingClauses(kids []Node, doc bsoncore.Document, nor bool) bsoncore.Array {
	ab := bsoncore.NewArrayBuilder()
	for i, k := range kids {
		if k.match(doc, nil) != nor {
			continue
		}
		d := bsoncore.NewDocumentBuilder().AppendInt32("index", int32(i))
		if nor {
			sb := bsoncore.NewDocumentBuilder()
			k.serialize(sb, true)
			spec := sb.Build()
			d.AppendDocument("details", bsoncore.NewDocumentBuilder().
				AppendString("operatorName", operatorName(spec)).
				AppendDocument("specifiedAs", spec).Build())
		} else {
			d.AppendDocument("details", failureDetails(k, doc))
		}
		ab.AppendDocument(d.Build())
	}
	return ab.Build()
}

// operatorName is the operator of a serialized predicate: the top-level
// key when it is an operator ($expr), else the first key of the path's
// right-hand side ({a: {$gt: 1}} -> $gt).
func operatorName(spec bsoncore.Document) string {
	els, err := spec.Elements()
	if err != nil || len(els) == 0 {
		return "$and"
	}
	k := els[0].Key()
	if strings.HasPrefix(k, "$") {
		return k
	}
	if rhs, ok := els[0].Value().DocumentOK(); ok {
		if inner, err := rhs.Elements(); err == nil && len(inner) > 0 && strings.HasPrefix(inner[0].Key(), "$") {
			if inner[0].Key() == "$not" {
				if d, ok := inner[0].Value().DocumentOK(); ok {
					if e2, err := d.Elements(); err == nil && len(e2) == 1 {
						switch e2[0].Key() {
						case "$eq":
							return "$ne"
						case "$in":
							return "$nin"
						}
					}
				}
			}
			return inner[0].Key()
		}
	}
	return "$eq"
}
