package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	registerStage("$fill", stageDef{parse: parseFill, access: noAccess, sources: noSources, where: anywhere, explain: explainNone, shape: shapeExpr})
}

// parseFill parses $fill and rewrites it as mongod 7.0 does: the
// {method: "locf"|"linear"} outputs become a $setWindowFields of $locf or
// $linearFill of the field itself (with the given sortBy and partitionBy,
// partitionByFields as the object {f: "$f", ...}), and the {value: <expr>}
// outputs an $addFields of {$ifNull: ["$f", <expr>]}.
func parseFill(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "The $fill stage specification must be an object, found %s", bsonutil.TypeName(v.Type))
	}
	var sortBy, partBy, partFields, output bsoncore.Value
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid $fill: %v", err)
	}
	for _, el := range elems {
		val := el.Value()
		switch el.Key() {
		case "sortBy":
			if val.Type != bsoncore.TypeEmbeddedDocument {
				return nil, wrongType("$fill.sortBy", val, "object")
			}
			sortBy = val
		case "partitionBy":
			if val.Type != bsoncore.TypeEmbeddedDocument && val.Type != bsoncore.TypeString {
				return nil, errs.New(errs.TypeMismatch, "BSON field '$fill.partitionBy' is the wrong type '%s', expected types '[string, object]'", bsonutil.TypeName(val.Type))
			}
			partBy = val
		case "partitionByFields":
			if val.Type != bsoncore.TypeArray {
				return nil, wrongType("$fill.partitionByFields", val, "array")
			}
			vals, _ := val.Array().Values()
			for _, f := range vals {
				if f.Type != bsoncore.TypeString {
					return nil, wrongType("$fill.partitionByFields.0", f, "string")
				}
			}
			partFields = val
		case "output":
			if val.Type != bsoncore.TypeEmbeddedDocument {
				return nil, wrongType("$fill.output", val, "object")
			}
			output = val
		default:
			return nil, errs.New(errs.Location40415, "BSON field '$fill.%s' is an unknown field.", el.Key())
		}
	}
	if output.Type == 0 {
		return nil, errs.New(errs.Location40414, "BSON field '$fill.output' is missing but a required field")
	}
	oels, _ := output.Document().Elements()
	if len(oels) == 0 {
		return nil, errs.New(errs.Location6050203, "The output field in '$fill' must contain an object with at least one element")
	}
	swOut := bsoncore.NewDocumentBuilder()
	addF := bsoncore.NewDocumentBuilder()
	needWindow, needAdd := false, false
	for _, el := range oels {
		f := el.Key()
		fv := el.Value()
		if fv.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location6050200, "Each fill output specification must be an object with exactly one field")
		}
		var method, value bsoncore.Value
		fels, _ := fv.Document().Elements()
		for _, x := range fels {
			switch x.Key() {
			case "method":
				if x.Value().Type != bsoncore.TypeString {
					return nil, wrongType("$fill.method", x.Value(), "string")
				}
				method = x.Value()
			case "value":
				value = x.Value()
			default:
				return nil, errs.New(errs.Location40415, "BSON field '$fill.%s' is an unknown field.", x.Key())
			}
		}
		if method.Type != 0 {
			if value.Type != 0 {
				return nil, errs.New(errs.Location6050201, "Each fill output specification must have exactly one of 'method' or 'value' fields, not both")
			}
			var op string
			switch method.StringValue() {
			case "locf":
				op = "$locf"
			case "linear":
				op = "$linearFill"
			default:
				return nil, errs.New(errs.Location6050202, "Method must be either locf or linear")
			}
			swOut.AppendDocument(f, bsoncore.NewDocumentBuilder().AppendString(op, "$"+f).Build())
			needWindow = true
		}
		if value.Type != 0 {
			addF.AppendDocument(f, bsoncore.NewDocumentBuilder().AppendArray("$ifNull",
				expr.Array(expr.String("$"+f), value).Array()).Build())
			needAdd = true
		}
	}
	sw := bsoncore.NewDocumentBuilder().AppendDocument("output", swOut.Build())
	if sortBy.Type != 0 {
		sw.AppendValue("sortBy", sortBy)
	}
	if partBy.Type != 0 {
		if partFields.Type != 0 {
			return nil, errs.New(errs.Location6050204, "Maximum one of 'partitionBy' and 'partitionByFields can be specified in '$fill'")
		}
		sw.AppendValue("partitionBy", partBy)
	}
	if partFields.Type != 0 {
		pb := bsoncore.NewDocumentBuilder()
		vals, _ := partFields.Array().Values()
		for _, f := range vals {
			pb.AppendString(f.StringValue(), "$"+f.StringValue())
		}
		sw.AppendDocument("partitionBy", pb.Build())
	}
	var out []stage
	if needWindow {
		ss, err := parseSetWindowFields(docValue(sw.Build()), pc)
		if err != nil {
			return nil, err
		}
		out = append(out, ss...)
	}
	if needAdd {
		ss, err := parseAddFields("$addFields")(docValue(addF.Build()), pc)
		if err != nil {
			return nil, err
		}
		out = append(out, ss...)
	}
	return out, nil
}

func wrongType(field string, v bsoncore.Value, want string) error {
	return errs.New(errs.TypeMismatch, "BSON field '%s' is the wrong type '%s', expected type '%s'", field, bsonutil.TypeName(v.Type), want)
}
