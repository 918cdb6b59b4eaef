package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$redact", stageDef{parse: parseRedact, access: noAccess, sources: noSources, where: perEvent, explain: explainNone, shape: shapeExpr})
}

// redactStage is $redact. Its expression is evaluated on each document
// and, while it answers $$DESCEND, on each embedded document reached
// through fields and arrays, with that document as $$CURRENT and the
// input document as $$ROOT. $$KEEP keeps the document being looked at
// whole, $$PRUNE drops it (from its parent, or from the output at the
// top), $$DESCEND keeps its scalar fields and redacts the documents and
// arrays below it. As in mongod, the three variables exist only inside
// the stage's expression and evaluate to the strings "descend", "prune"
// and "keep", so an expression returning those strings directly works
// too; any other result fails with 17053.
type redactStage struct {
	raw                  bsoncore.Value
	e                    expr.Expr
	descend, prune, keep int
}

var (
	redactDescend = expr.String("descend")
	redactPrune   = expr.String("prune")
	redactKeep    = expr.String("keep")
)

func parseRedact(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	r := &redactStage{raw: v}
	pc.Expr.PushScope()
	defer pc.Expr.PopScope()
	r.descend = pc.Expr.DefineScoped("DESCEND")
	r.prune = pc.Expr.DefineScoped("PRUNE")
	r.keep = pc.Expr.DefineScoped("KEEP")
	e, err := expr.Parse(v, pc.Expr)
	if err != nil {
		return nil, err
	}
	r.e = e
	return []stage{r}, nil
}

func (r *redactStage) name() string            { return "$redact" }
func (r *redactStage) spec() bsoncore.Document { return specDoc("$redact", r.raw) }

func (r *redactStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	rc.vars.Set(r.descend, redactDescend)
	rc.vars.Set(r.prune, redactPrune)
	rc.vars.Set(r.keep, redactKeep)
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		saved := rc.vars.Root
		rc.vars.Root = d
		defer func() { rc.vars.Root = saved }()
		out, keep, err := r.object(d, rc.vars)
		if err != nil || !keep {
			return nil, err
		}
		return out, nil
	}), nil
}

// object redacts one document (the input or an embedded one); keep is
// false when it is pruned.
func (r *redactStage) object(d bsoncore.Document, vars *expr.Vars) (bsoncore.Document, bool, error) {
	res, err := r.e.Eval(d, vars)
	if err != nil {
		return nil, false, err
	}
	switch {
	case res.Type == bsoncore.TypeString && res.StringValue() == "keep":
		return d, true, nil
	case res.Type == bsoncore.TypeString && res.StringValue() == "prune":
		return nil, false, nil
	case res.Type == bsoncore.TypeString && res.StringValue() == "descend":
	default:
		return nil, false, errs.New(errs.Location17053, "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned %s", redactRender(res))
	}
	b := bsoncore.NewDocumentBuilder()
	elems, err := d.Elements()
	if err != nil {
		return nil, false, err
	}
	for _, el := range elems {
		v, keep, err := r.value(el.Value(), vars)
		if err != nil {
			return nil, false, err
		}
		if keep {
			b.AppendValue(el.Key(), v)
		}
	}
	return b.Build(), true, nil
}

// value redacts a field's value: documents are evaluated, arrays are
// walked (their document and array elements redacted, pruned documents
// removed), other values are kept.
func (r *redactStage) value(v bsoncore.Value, vars *expr.Vars) (bsoncore.Value, bool, error) {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		d, keep, err := r.object(v.Document(), vars)
		if err != nil || !keep {
			return bsoncore.Value{}, false, err
		}
		return docValue(d), true, nil
	case bsoncore.TypeArray:
		vals, err := v.Array().Values()
		if err != nil {
			return bsoncore.Value{}, false, err
		}
		ab := bsoncore.NewArrayBuilder()
		for _, x := range vals {
			if x.Type == bsoncore.TypeEmbeddedDocument || x.Type == bsoncore.TypeArray {
				y, keep, err := r.value(x, vars)
				if err != nil {
					return bsoncore.Value{}, false, err
				}
				if keep {
					ab.AppendValue(y)
				}
				continue
			}
			ab.AppendValue(x)
		}
		return bsoncore.Value{Type: bsoncore.TypeArray, Data: ab.Build()}, true, nil
	}
	return v, true, nil
}

// redactRender prints a value as mongod's Value does in 17053's message:
// strings quoted, missing as MISSING.
func redactRender(v bsoncore.Value) string {
	switch v.Type {
	case 0:
		return "MISSING"
	case bsoncore.TypeString:
		return "\"" + v.StringValue() + "\""
	}
	return bsonutil.FormatValue(v, bsonutil.Style{})
}
