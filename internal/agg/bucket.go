package agg

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$bucket", stageDef{parse: parseBucket, access: noAccess, sources: noSources, where: anywhere, explain: groupExplain, shape: shapeExpr})
}

// countPlan: a $bucket needs its documents (the embedded group's count
// plan is not its).
func (s *bucketStage) countPlan() *countPlan { return nil }

// bucketStage is $bucket: a $group keyed by the boundary range of groupBy,
// followed by a sort on _id.
type bucketStage struct {
	*groupStage
	raw        bsoncore.Value
	groupBy    expr.Expr
	boundaries []bsoncore.Value
	def        bsoncore.Value // missing when absent
}

func parseOutputSpec(stageName string, output bsoncore.Value, pc *ParseContext) (*groupStage, error) {
	b := bsoncore.NewDocumentBuilder().AppendNull("_id")
	if output.Type == 0 {
		b.AppendDocument("count", bsoncore.NewDocumentBuilder().AppendInt32("$sum", 1).Build())
	} else {
		od, ok := output.DocumentOK()
		if !ok {
			return nil, errs.New(errs.Location40196, "The %s 'output' field must be an object, but found type: %s.", stageName, bsonutil.TypeName(output.Type))
		}
		els, _ := od.Elements()
		for _, el := range els {
			b.AppendValue(el.Key(), el.Value())
		}
	}
	return newGroup(docValue(b.Build()), pc)
}

func parseBucket(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location40201, "Argument to $bucket stage must be an object, but found type: %s.", bsonutil.TypeName(v.Type))
	}
	bs := &bucketStage{raw: v}
	var groupBy, bounds, output bsoncore.Value
	els, _ := d.Elements()
	for _, el := range els {
		switch el.Key() {
		case "groupBy":
			groupBy = el.Value()
		case "boundaries":
			bounds = el.Value()
		case "default":
			bs.def = el.Value()
		case "output":
			output = el.Value()
		default:
			return nil, errs.New(errs.Location40197, "Unrecognized option to $bucket: %s.", el.Key())
		}
	}
	if groupBy.Type == 0 || bounds.Type == 0 {
		return nil, errs.New(errs.Location40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.")
	}
	if groupBy.Type != bsoncore.TypeString && !isOperatorDoc(groupBy) || groupBy.Type == bsoncore.TypeString && (len(groupBy.StringValue()) == 0 || groupBy.StringValue()[0] != '$') {
		return nil, errs.New(errs.Location40202, "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: %s.", groupBy.String())
	}
	arr, ok := bounds.ArrayOK()
	if !ok {
		return nil, errs.New(errs.Location40200, "The $bucket 'boundaries' field must be an array, but found type: %s.", bsonutil.TypeName(bounds.Type))
	}
	vals, _ := arr.Values()
	if len(vals) < 2 {
		return nil, errs.New(errs.Location40192, "The $bucket 'boundaries' field must have at least 2 values, but found %d value(s).", len(vals))
	}
	for i := 1; i < len(vals); i++ {
		a, b := vals[i-1], vals[i]
		if bsonutil.TypeOrder(a.Type) != bsonutil.TypeOrder(b.Type) {
			return nil, errs.New(errs.Location40193, "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types %s and %s.", bsonutil.TypeName(a.Type), bsonutil.TypeName(b.Type))
		}
		if expr.CompareWith(pc.Collator, a, b) >= 0 {
			return nil, errs.New(errs.Location40194, "The 'boundaries' option to $bucket must be sorted in ascending order, but elements %d and %d are not in ascending order (%s is not less than %s).", i-1, i, a.String(), b.String())
		}
	}
	bs.boundaries = vals
	if bs.def.Type != 0 {
		lo, hi := vals[0], vals[len(vals)-1]
		if bsonutil.TypeOrder(bs.def.Type) == bsonutil.TypeOrder(lo.Type) && expr.CompareWith(pc.Collator, bs.def, lo) >= 0 && expr.CompareWith(pc.Collator, bs.def, hi) < 0 {
			return nil, errs.New(errs.Location40199, "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.")
		}
	}
	e, err := expr.Parse(groupBy, pc.Expr)
	if err != nil {
		return nil, err
	}
	bs.groupBy = e
	g, err := parseOutputSpec("$bucket", output, pc)
	if err != nil {
		return nil, err
	}
	g.raw = v
	g.idConst = false
	g.id = expr.Const(expr.Null)
	bs.groupStage = g
	g.keyFn = bs.bucketKey
	s, _ := parseSort(docValue(bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build()), pc)
	return []stage{bs, s[0]}, nil
}

func (b *bucketStage) name() string            { return "$bucket" }
func (b *bucketStage) spec() bsoncore.Document { return specDoc("$bucket", b.raw) }

// bucketKey returns the lower boundary of the bucket holding doc.
func (b *bucketStage) bucketKey(d bsoncore.Document, vars *expr.Vars) (bsoncore.Value, error) {
	v, err := b.groupBy.Eval(d, vars)
	if err != nil {
		return bsoncore.Value{}, err
	}
	if expr.IsMissing(v) {
		v = expr.Null
	}
	bs := b.boundaries
	if bsonutil.TypeOrder(v.Type) == bsonutil.TypeOrder(bs[0].Type) && expr.CompareWith(b.coll, v, bs[0]) >= 0 && expr.CompareWith(b.coll, v, bs[len(bs)-1]) < 0 {
		i := sort.Search(len(bs), func(i int) bool { return expr.CompareWith(b.coll, bs[i], v) > 0 })
		return bs[i-1], nil
	}
	if b.def.Type == 0 {
		return bsoncore.Value{}, errs.New(errs.Location40066, "$switch could not find a matching branch for an input, and no default was specified.")
	}
	return b.def, nil
}
