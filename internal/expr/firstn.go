package expr

import (
	"sort"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$firstN": parseNOp("firstN"), "$lastN": parseNOp("lastN"),
		"$maxN": parseNOp("maxN"), "$minN": parseNOp("minN"),
	})
}

// parseNOp implements $firstN, $lastN, $maxN and $minN on arrays.
func parseNOp(kind string) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		if args.Type != bsoncore.TypeEmbeddedDocument {
			code := errs.Location5787801 // $firstN, $lastN
			if name == "$maxN" || name == "$minN" {
				code = errs.Code(5787900)
			}
			return nil, errs.New(code, "specification must be an object; found %s", bsonutil.TypeName(args.Type))
		}
		raw := rawSpec(args)
		if err := checkKeys(name, raw, errs.Location5787901, "input", "n"); err != nil {
			return nil, err
		}
		if raw["input"].Type == 0 || raw["n"].Type == 0 {
			return nil, errs.New(errs.Location5787906, "%s requires 'n' and 'input' fields", name)
		}
		input, err := parse(raw["input"], pc)
		if err != nil {
			return nil, err
		}
		nE, err := parse(raw["n"], pc)
		if err != nil {
			return nil, err
		}
		coll := pc.Collator
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			nv, err := nE.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			n, err := CheckN(name, nv)
			if err != nil {
				return Missing, err
			}
			in, err := input.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(in) {
				return Null, nil
			}
			if in.Type != bsoncore.TypeArray {
				return Missing, errs.New(errs.Location5788200, "Input to %s must be an array, but is of type: %s", name, bsonutil.TypeName(in.Type))
			}
			vs := values(in)
			switch kind {
			case "firstN":
				vs = vs[:min(int64(len(vs)), n)]
			case "lastN":
				vs = vs[max(0, int64(len(vs))-n):]
			default:
				kept := vs[:0]
				for _, x := range vs {
					if !IsNullish(x) {
						kept = append(kept, x)
					}
				}
				dir := 1
				if kind == "maxN" {
					dir = -1
				}
				sort.SliceStable(kept, func(i, j int) bool { return CompareWith(coll, kept[i], kept[j])*dir < 0 })
				vs = kept[:min(int64(len(kept)), n)]
			}
			return Array(vs...), nil
		}), nil
	}
}

// CheckN validates the 'n' argument of the N operators and accumulators.
func CheckN(name string, nv bsoncore.Value) (int64, error) {
	if !isNum(nv) {
		return 0, errs.New(errs.Location5787902, "Value for 'n' must be of integral type, but found %s", bsonutil.FormatValue(nv, msgStyle))
	}
	n, ok := asIntegral(nv)
	if !ok {
		return 0, errs.New(errs.Location5787903, "Value for 'n' must be of integral type, but found %s", bsonutil.FormatValue(nv, msgStyle))
	}
	if n <= 0 {
		return 0, errs.New(errs.Location5787908, "'n' must be greater than 0, found %d", n)
	}
	return n, nil
}
