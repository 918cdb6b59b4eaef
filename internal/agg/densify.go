package agg

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entries of the stages in this file (stagedef.go).
func init() {
	registerStage("$densify", stageDef{parse: parseDensify, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeExpr})
	registerStage("$_internalDensify", stageDef{parse: parseInternalDensify, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeExpr})
}

// Bounds kinds of $densify's range.
const (
	densifyFull = iota
	densifyPartition
	densifyExplicit
)

// densifySpec is a parsed $densify: the field, the partitions, the step
// (with a unit for dates) and the bounds.
type densifySpec struct {
	field      []string
	fieldStr   string
	partitions [][]string
	partStrs   []string
	step       bsoncore.Value
	stepInt    int64 // the step of a date range
	unit       string
	hasUnit    bool
	bounds     int
	lo, hi     densifyValue // explicit bounds
}

// parseDensify parses $densify into what mongod 7.0 desugars it to: a
// $sort on the partition fields (unless the bounds are "full") and the
// field, then $_internalDensify.
func parseDensify(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	sp, err := parseDensifySpec("$densify", v)
	if err != nil {
		return nil, err
	}
	sb := bsoncore.NewDocumentBuilder()
	seen := map[string]bool{}
	if sp.bounds != densifyFull {
		for _, p := range sp.partStrs {
			if !seen[p] {
				seen[p] = true
				sb.AppendInt32(p, 1)
			}
		}
	}
	if !seen[sp.fieldStr] {
		sb.AppendInt32(sp.fieldStr, 1)
	}
	sortStages, err := parseSort(docValue(sb.Build()), pc)
	if err != nil {
		return nil, err
	}
	return append(sortStages, &densifyStage{densifySpec: sp, coll: pc.Collator}), nil
}

// parseInternalDensify parses $_internalDensify, which mongod 7.0 also
// accepts from clients: the streaming half alone, its input assumed
// sorted.
func parseInternalDensify(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	sp, err := parseDensifySpec("$_internalDensify", v)
	if err != nil {
		return nil, err
	}
	return []stage{&densifyStage{densifySpec: sp, coll: pc.Collator}}, nil
}

func parseDensifySpec(name string, v bsoncore.Value) (*densifySpec, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "The %s stage specification must be an object, found %s", name, bsonutil.TypeName(v.Type))
	}
	sp := &densifySpec{}
	var rangeDoc bsoncore.Document
	var bounds bsoncore.Value
	hasField := false
	elems, _ := d.Elements()
	for _, el := range elems {
		ev := el.Value()
		switch el.Key() {
		case "field":
			s, ok := ev.StringValueOK()
			if !ok {
				return nil, idlTypeError(name+".field", ev, "string")
			}
			sp.fieldStr, hasField = s, true
		case "partitionByFields":
			if ev.Type != bsoncore.TypeArray {
				return nil, idlTypeError(name+".partitionByFields", ev, "array")
			}
			for i, x := range expr.ArrayValues(ev) {
				s, ok := x.StringValueOK()
				if !ok {
					return nil, idlTypeError(name+".partitionByFields."+itoaInt(i), x, "string")
				}
				sp.partStrs = append(sp.partStrs, s)
			}
		case "range":
			r, ok := ev.DocumentOK()
			if !ok {
				return nil, idlTypeError(name+".range", ev, "object")
			}
			if err := sp.parseRangeIDL(name, r, &bounds); err != nil {
				return nil, err
			}
			rangeDoc = r
		default:
			return nil, errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", name, el.Key())
		}
	}
	if !hasField {
		return nil, errs.New(errs.Location40414, "BSON field '%s.field' is missing but a required field", name)
	}
	if rangeDoc == nil {
		return nil, errs.New(errs.Location40414, "BSON field '%s.range' is missing but a required field", name)
	}
	if err := sp.parseRange(bounds); err != nil {
		return nil, err
	}
	for _, p := range sp.partStrs {
		// Later mongod versions refuse a partition field and a field that
		// overlap; 7.0 accepts them and overwrites the partition values.
		// Lode refuses them when one is the other or a path prefix of it.
		if p == sp.fieldStr || strings.HasPrefix(p, sp.fieldStr+".") {
			return nil, errs.New(errs.Location8993000, "partitionByFields '%s' cannot include field '%s' that is being densified.", p, sp.fieldStr)
		}
		if strings.HasPrefix(sp.fieldStr, p+".") {
			return nil, errs.New(errs.Location9554500, "field '%s' that is being densified cannot include partitionByFields '%s'.", sp.fieldStr, p)
		}
		parts, err := expr.ParseFieldPath(p)
		if err != nil {
			return nil, err
		}
		sp.partitions = append(sp.partitions, parts)
	}
	parts, err := expr.ParseFieldPath(sp.fieldStr)
	if err != nil {
		return nil, err
	}
	sp.field = parts
	if sp.bounds == densifyPartition && len(sp.partitions) == 0 {
		return nil, errs.New(errs.Location5733408, "One cannot specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds.")
	}
	return sp, nil
}

// parseRangeIDL reads {step, unit, bounds} as mongod's IDL parser does:
// unknown fields, types and required fields.
func (sp *densifySpec) parseRangeIDL(name string, r bsoncore.Document, bounds *bsoncore.Value) error {
	hasStep, hasBounds := false, false
	elems, _ := r.Elements()
	for _, el := range elems {
		ev := el.Value()
		switch el.Key() {
		case "step":
			if !bsonutil.IsNumber(ev.Type) {
				return errs.New(errs.TypeMismatch, "BSON field '%s.range.step' is the wrong type '%s', expected types '[long, double, int, decimal']", name, bsonutil.TypeName(ev.Type))
			}
			sp.step, hasStep = ev, true
		case "unit":
			s, ok := ev.StringValueOK()
			if !ok {
				return idlTypeError(name+".range.unit", ev, "string")
			}
			sp.unit, sp.hasUnit = s, true
		case "bounds":
			*bounds, hasBounds = ev, true
		default:
			return errs.New(errs.Location40415, "BSON field '%s.range.%s' is an unknown field.", name, el.Key())
		}
	}
	if !hasStep {
		return errs.New(errs.Location40414, "BSON field '%s.range.step' is missing but a required field", name)
	}
	if !hasBounds {
		return errs.New(errs.Location40414, "BSON field '%s.range.bounds' is missing but a required field", name)
	}
	return nil
}

// parseRange checks the range as mongod's RangeStatement::parse does, in
// its order.
func (sp *densifySpec) parseRange(bounds bsoncore.Value) error {
	hasUnit := sp.hasUnit
	if !bsonutil.IsNumber(sp.step.Type) || bsonutil.Compare(sp.step, expr.Int32(0)) <= 0 {
		return errs.New(errs.Location5733401, "The step parameter in a range statement must be a strictly positive numeric value")
	}
	if hasUnit {
		if !integral64(sp.step) {
			return errs.New(errs.Location6586400, "The step parameter in a range statement must be a whole number when densifying a date range")
		}
		if !expr.ValidTimeUnit(sp.unit) {
			return errs.New(errs.FailedToParse, "unknown time unit value: %s", sp.unit)
		}
		sp.stepInt = bsonutil.AsInt64(sp.step)
	}
	switch bounds.Type {
	case bsoncore.TypeArray:
		vals := expr.ArrayValues(bounds)
		if len(vals) != 2 {
			return errs.New(errs.Location5733403, "A bounding array in a range statement must have exactly two elements")
		}
		if bsonutil.Compare(vals[0], vals[1]) > 0 {
			return errs.New(errs.Location5733402, "A bounding array must be an ascending array of either two dates or two numbers")
		}
		switch {
		case bsonutil.IsNumber(vals[0].Type):
			if hasUnit {
				return errs.New(errs.Location5733409, "Numeric bounds may not have unit parameter")
			}
			if !bsonutil.IsNumber(vals[1].Type) {
				return errs.New(errs.Location5733406, "A bounding array must contain either both dates or both numeric types")
			}
			if vals[0].Type != vals[1].Type || vals[0].Type != sp.step.Type {
				return errs.New(errs.Location5876900, "Upper bound, lower bound, and step must all have the same type")
			}
			sp.lo, sp.hi = densifyValue{num: copyValue(vals[0])}, densifyValue{num: copyValue(vals[1])}
		case vals[0].Type == bsoncore.TypeDateTime:
			if vals[1].Type != bsoncore.TypeDateTime {
				return errs.New(errs.Location5733405, "A bounding array must contain either both dates or both numeric types")
			}
			if !hasUnit {
				return errs.New(errs.Location5733410, "A bounding array of dates must specify a unit")
			}
			sp.lo = densifyValue{isDate: true, ms: vals[0].DateTime()}
			sp.hi = densifyValue{isDate: true, ms: vals[1].DateTime()}
		default:
			return errs.New(errs.Location5946800, "Explicit bounds must be numeric or dates")
		}
		sp.bounds = densifyExplicit
	case bsoncore.TypeString:
		switch bounds.StringValue() {
		case "full":
			sp.bounds = densifyFull
		case "partition":
			sp.bounds = densifyPartition
		default:
			return errs.New(errs.Location5946802, "Bounds string must either be 'full' or 'partition'")
		}
	default:
		return errs.New(errs.Location5733404, "The bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates")
	}
	return nil
}

// integral64 reports whether a number is a whole number that fits in a
// 64-bit integer (mongod's Value::integral64Bit).
func integral64(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return true
	}
	f := bsonutil.AsFloat64(v)
	if v.Type == bsoncore.TypeDecimal128 {
		return bsonutil.CompareNumbers(v, expr.Int64(int64(f))) == 0 && f > -9.3e18 && f < 9.3e18
	}
	return f == float64(int64(f)) && f >= -9.223372036854775808e18 && f < 9.223372036854775808e18
}

// idlTypeError is the TypeMismatch of a field of the wrong type in a
// specification mongod parses with IDL.
func idlTypeError(field string, v bsoncore.Value, want string) error {
	return errs.New(errs.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type '%s'", field, bsonutil.TypeName(v.Type), want)
}

func itoaInt(i int) string { return strconv.Itoa(i) }

// serialize renders {field, partitionByFields, range: {step, bounds,
// unit?}} as mongod's $_internalDensify does in explain.
func (sp *densifySpec) serialize() bsoncore.Document {
	pb := bsoncore.NewArrayBuilder()
	for _, p := range sp.partStrs {
		pb.AppendString(p)
	}
	rb := bsoncore.NewDocumentBuilder().AppendValue("step", sp.step)
	switch sp.bounds {
	case densifyFull:
		rb.AppendString("bounds", "full")
	case densifyPartition:
		rb.AppendString("bounds", "partition")
	default:
		rb.AppendArray("bounds", bsoncore.NewArrayBuilder().AppendValue(sp.lo.value()).AppendValue(sp.hi.value()).Build())
	}
	if sp.unit != "" {
		rb.AppendString("unit", sp.unit)
	}
	return bsoncore.NewDocumentBuilder().
		AppendString("field", sp.fieldStr).
		AppendArray("partitionByFields", pb.Build()).
		AppendDocument("range", rb.Build()).
		Build()
}
