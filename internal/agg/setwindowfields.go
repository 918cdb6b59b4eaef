package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/agg/window"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/query"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$setWindowFields", stageDef{parse: parseSetWindowFields, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeExpr})
}

// partitionTmpField is the field mongod computes a partitionBy expression
// into (with $set before the $sort, removed by $unset after).
const partitionTmpField = "__internal_setWindowFields_partition_key"

// parseSetWindowFields parses $setWindowFields and desugars it as mongod
// 7.0 does: [$set of the partition key when partitionBy is neither a field
// path nor a constant], $sort on (partition key, sortBy) when either is
// given, $_internalSetWindowFields, [$unset of the partition key]. The
// $sort is the ordinary blocking sort (spilling with allowDiskUse, and
// pushed down into the query when it comes first), so the window stage
// only ever streams one partition at a time.
func parseSetWindowFields(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "the $setWindowFields stage specification must be an object, found %s", bsonutil.TypeName(v.Type))
	}
	var partRaw, sortRaw, outRaw bsoncore.Value
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid $setWindowFields: %v", err)
	}
	for _, el := range elems {
		switch el.Key() {
		case "partitionBy":
			partRaw = el.Value()
		case "sortBy":
			sortRaw = el.Value()
			if sortRaw.Type != bsoncore.TypeEmbeddedDocument {
				return nil, errs.New(errs.TypeMismatch, "BSON field '$setWindowFields.sortBy' is the wrong type '%s', expected type 'object'", bsonutil.TypeName(sortRaw.Type))
			}
		case "output":
			outRaw = el.Value()
			if outRaw.Type != bsoncore.TypeEmbeddedDocument {
				return nil, errs.New(errs.TypeMismatch, "BSON field '$setWindowFields.output' is the wrong type '%s', expected type 'object'", bsonutil.TypeName(outRaw.Type))
			}
		default:
			return nil, errs.New(errs.Location40415, "BSON field '$setWindowFields.%s' is an unknown field.", el.Key())
		}
	}
	if outRaw.Type == 0 {
		return nil, errs.New(errs.Location40414, "BSON field '$setWindowFields.output' is missing but a required field")
	}
	w := &windowStage{raw: v, coll: pc.Collator}
	var sortBy *query.Sort
	if sortRaw.Type != 0 {
		if isEmptyDoc(sortRaw) {
			return nil, errs.New(errs.Location15976, "$sort stage must have at least one sort key")
		}
		if sortBy, err = query.ParseSort(sortRaw.Document()); err != nil {
			return nil, err
		}
		if _, nat := sortBy.Natural(); nat {
			return nil, errs.New(errs.Location17312, "$natural is not allowed in $sort")
		}
		w.sortBy = window.NewSortInfo(sortBy, sortRaw.Document())
	}
	wpc := &window.ParseContext{Expr: pc.Expr, SortBy: w.sortBy,
		MaxPushBytes: pc.params().MaxPushBytes.Load(), MaxAddToSetBytes: pc.params().MaxAddToSetBytes.Load()}
	w.tree = newPnode()
	oels, _ := outRaw.Document().Elements()
	for i, el := range oels {
		node, leaf, err := w.tree.at("$setWindowFields", el.Key())
		if err != nil {
			if e, ok := err.(*errs.Error); ok && (e.Code == errs.Location31250 || e.Code == errs.Location31249) {
				return nil, errs.New(errs.Location6307900, "$setWindowFields 'output' specification contains two conflicting paths")
			}
			return nil, err
		}
		spec, err := window.Parse(el.Value(), wpc)
		if err != nil {
			return nil, err
		}
		node.set(leaf, &pchild{kind: pExpr, e: &windowSlot{i: i}})
		w.fields = append(w.fields, el.Key())
		w.specs = append(w.specs, spec)
	}

	// The partition key.
	var out []stage
	var partPath string
	var complexPart expr.Expr
	if partRaw.Type != 0 {
		e, err := expr.Parse(partRaw, pc.Expr)
		if err != nil {
			return nil, err
		}
		c, isConst, err := window.Constant(partRaw, pc.Expr)
		if err != nil {
			return nil, err
		}
		if isConst {
			if c.Type == bsoncore.TypeArray {
				return nil, errs.New(errs.TypeMismatch, "An expression used to partition cannot evaluate to value of type array")
			}
			// A constant is one partition, as mongod folds it.
		} else if p, ok := expr.AsFieldPath(e); ok && partRaw.Type == bsoncore.TypeString && !strings.HasPrefix(partRaw.StringValue(), "$$") {
			partPath = p
		} else {
			partPath, complexPart = partitionTmpField, e
		}
	}
	if partPath != "" {
		w.partBy = expr.FieldPath(strings.Split(partPath, "."))
		w.partRaw = expr.String("$" + partPath)
	}
	if complexPart != nil {
		tree := newPnode()
		tree.set(partitionTmpField, &pchild{kind: pExpr, e: complexPart})
		raw := docValue(bsoncore.NewDocumentBuilder().AppendValue(partitionTmpField, partRaw).Build())
		out = append(out, &addFieldsStage{stageName: "$set", raw: raw, tree: tree})
	}
	// The $sort on (partition key, sortBy), without sortBy's copy of the
	// partition field.
	sb := bsoncore.NewDocumentBuilder()
	n := 0
	if partPath != "" {
		sb.AppendInt32(partPath, 1)
		n++
	}
	if sortBy != nil {
		sels, _ := sortRaw.Document().Elements()
		for _, el := range sels {
			if el.Key() == partPath {
				continue
			}
			sb.AppendValue(el.Key(), el.Value())
			n++
		}
	}
	if n > 0 {
		sd := sb.Build()
		s, err := query.ParseSort(sd)
		if err != nil {
			return nil, err
		}
		out = append(out, &sortStage{raw: sd, sort: s.Collated(pc.Collator)})
	}
	out = append(out, w)
	if complexPart != nil {
		// mongod's $unset of the key explains as this $project.
		un, err := parseProject(docValue(bsoncore.NewDocumentBuilder().AppendBoolean(partitionTmpField, false).AppendBoolean("_id", true).Build()), pc)
		if err != nil {
			return nil, err
		}
		out = append(out, un...)
	}
	return out, nil
}

// windowSlot is the expression an output field's $addFields node reads:
// the value the window function computed for the current document. Each
// run builds its own tree of slots over its own values.
type windowSlot struct {
	vals *[]bsoncore.Value
	i    int
}

func (s *windowSlot) Eval(bsoncore.Document, *expr.Vars) (bsoncore.Value, error) {
	return (*s.vals)[s.i], nil
}

// outputTree builds the $addFields tree of the output fields over vals.
func (w *windowStage) outputTree(vals *[]bsoncore.Value) *pnode {
	tree := newPnode()
	for i, f := range w.fields {
		node, leaf, _ := tree.at("$setWindowFields", f) // checked at parse
		node.set(leaf, &pchild{kind: pExpr, e: &windowSlot{vals: vals, i: i}})
	}
	return tree
}
