package expr

import (
	"math"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(map[string]opParser{"$zip": parseZip}) }

// parseZip implements $zip: it transposes an array of input arrays into
// an array of tuples, stopping at the shortest input unless
// useLongestLength pads with defaults (or null).
func parseZip(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location34460, "$zip only supports an object as an argument, found %s", bsonutil.TypeName(args.Type))
	}
	raw := rawSpec(args)
	if err := checkKeys(name, raw, errs.Location34464, "inputs", "useLongestLength", "defaults"); err != nil {
		return nil, err
	}
	if raw["inputs"].Type != bsoncore.TypeArray {
		return nil, errs.New(errs.Location34461, "inputs must be an array of expressions, found %s", bsonutil.TypeName(raw["inputs"].Type))
	}
	inputs, err := parseArgs(raw["inputs"], pc)
	if err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, errs.New(errs.Code(34465), "$zip requires at least one input array")
	}
	longest := false
	if v := raw["useLongestLength"]; v.Type != 0 {
		if v.Type != bsoncore.TypeBoolean {
			return nil, errs.New(errs.Location34463, "useLongestLength must be a bool, found %s", bsonutil.TypeName(v.Type))
		}
		longest = v.Boolean()
	}
	var defaults []Expr
	if v := raw["defaults"]; v.Type != 0 {
		if v.Type != bsoncore.TypeArray {
			return nil, errs.New(errs.Location34462, "defaults must be an array of expressions, found %s", bsonutil.TypeName(v.Type))
		}
		if defaults, err = parseArgs(v, pc); err != nil {
			return nil, err
		}
		if !longest {
			return nil, errs.New(errs.Location34466, "cannot specify defaults unless useLongestLength is true")
		}
		if len(defaults) != len(inputs) {
			return nil, errs.New(errs.Location34467, "defaults and inputs must have the same length")
		}
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		arrs := make([][]bsoncore.Value, len(inputs))
		minL, maxL := math.MaxInt, 0
		for i, e := range inputs {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(v) {
				return Null, nil
			}
			if v.Type != bsoncore.TypeArray {
				return Missing, errs.New(errs.Location34468, "$zip found a non-array expression in input: %s", bsonutil.FormatValue(v, msgStyle))
			}
			arrs[i] = values(v)
			minL, maxL = min(minL, len(arrs[i])), max(maxL, len(arrs[i]))
		}
		defs, err := evalAll(defaults, doc, vars)
		if err != nil {
			return Missing, err
		}
		n := minL
		if longest {
			n = maxL
		}
		if len(arrs) == 0 {
			n = 0
		}
		out := NewArrayBuilder()
		for j := 0; j < n; j++ {
			if err := vars.tick(); err != nil {
				return Missing, err
			}
			if err := vars.checkBuilt("$zip", len(out.buf)); err != nil {
				return Missing, err
			}
			row := NewArrayBuilder()
			for i := range arrs {
				switch {
				case j < len(arrs[i]):
					row.Append(arrs[i][j])
				case len(defs) > 0:
					row.Append(orNull(defs[i]))
				default:
					row.Append(Null)
				}
			}
			out.Append(row.Value())
		}
		return out.Value(), nil
	}), nil
}
