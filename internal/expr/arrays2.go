package expr

import (
	"math"
	"sort"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$zip": parseZip, "$sortArray": parseSortArray, "$arrayToObject": parseArrayToObject,
		"$objectToArray": parseObjectToArray, "$firstN": parseNOp("firstN"), "$lastN": parseNOp("lastN"),
		"$maxN": parseNOp("maxN"), "$minN": parseNOp("minN"),
	})
}

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

// SortSpec orders values as $sortArray / $top / $bottom sortBy does:
// either whole values (Whole, with Dir) or by document fields.
type SortSpec struct {
	Whole  bool
	Dir    int
	Fields [][]string
	Dirs   []int
}

// ParseSortSpec parses a sortBy value: 1, -1 or a document {field: ±1}.
func ParseSortSpec(v bsoncore.Value) (*SortSpec, error) {
	if isNum(v) {
		d, ok := asIntegral(v)
		if !ok || (d != 1 && d != -1) {
			return nil, errs.New(errs.Location2942904, "$sortArray sortBy must be 1 or -1 or a document")
		}
		return &SortSpec{Whole: true, Dir: int(d)}, nil
	}
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location2942905, "sortBy must be either an object or a numeric value")
	}
	s := &SortSpec{}
	var err error
	forEach(v.Data, func(k []byte, x bsoncore.Value) bool {
		var path []string
		if path, err = ParseFieldPath(string(k)); err != nil {
			return false
		}
		d, ok := asIntegral(x)
		if !isNum(x) || !ok || (d != 1 && d != -1) {
			err = errs.New(errs.Location15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
			return false
		}
		s.Fields = append(s.Fields, path)
		s.Dirs = append(s.Dirs, int(d))
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(s.Fields) == 0 {
		return nil, errs.New(errs.Location15976, "$sort stage must have at least one sort key")
	}
	return s, nil
}

// sortKeyOf extracts a document sort key as $sort does: arrays give their
// min (ascending) or max (descending) element.
func sortKeyOf(v bsoncore.Value, path []string, dir int) bsoncore.Value {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return Null
	}
	x := lookupPath(v.Data, path)
	if x.Type == 0 {
		return Null
	}
	if x.Type == bsoncore.TypeArray {
		var best bsoncore.Value
		forEach(x.Data, func(_ []byte, e bsoncore.Value) bool {
			if best.Type == 0 || bsonutil.Compare(e, best)*dir < 0 {
				best = e
			}
			return true
		})
		if best.Type == 0 {
			return Missing // empty array sorts before null
		}
		return best
	}
	return x
}

// Compare orders a and b by the spec.
func (s *SortSpec) Compare(a, b bsoncore.Value) int {
	if s.Whole {
		return compareVals(a, b) * s.Dir
	}
	for i, p := range s.Fields {
		ka, kb := sortKeyOf(a, p, s.Dirs[i]), sortKeyOf(b, p, s.Dirs[i])
		var c int
		if ka.Type == 0 || kb.Type == 0 {
			c = cmpMissing(ka, kb)
		} else {
			c = bsonutil.Compare(ka, kb)
		}
		if c != 0 {
			return c * s.Dirs[i]
		}
	}
	return 0
}

func cmpMissing(a, b bsoncore.Value) int {
	switch {
	case a.Type == 0 && b.Type == 0:
		return 0
	case a.Type == 0:
		return -1
	}
	return 1
}

func parseSortArray(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location2942500, "$sortArray requires an object as an argument, found: %s", bsonutil.TypeName(args.Type))
	}
	raw := rawSpec(args)
	if err := checkKeys(name, raw, errs.Location2942501, "input", "sortBy"); err != nil {
		return nil, err
	}
	if raw["input"].Type == 0 {
		return nil, errs.New(errs.Location2942502, "$sortArray requires 'input' to be specified")
	}
	if raw["sortBy"].Type == 0 {
		return nil, errs.New(errs.Location2942503, "$sortArray requires 'sortBy' to be specified")
	}
	input, err := parse(raw["input"], pc)
	if err != nil {
		return nil, err
	}
	spec, err := ParseSortSpec(raw["sortBy"])
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		in, err := input.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(in) {
			return Null, nil
		}
		if in.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location2942504, "The input argument to $sortArray must be an array, but was of type: %s", bsonutil.TypeName(in.Type))
		}
		vs := values(in)
		sort.SliceStable(vs, func(i, j int) bool { return spec.Compare(vs[i], vs[j]) < 0 })
		return Array(vs...), nil
	}), nil
}

var parseObjectToArray = unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
	if IsNullish(v) {
		return Null, nil
	}
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return Missing, errs.New(errs.Location40390, "$objectToArray requires a document input, found: %s", bsonutil.TypeName(v.Type))
	}
	b := NewArrayBuilder()
	forEach(v.Data, func(k []byte, x bsoncore.Value) bool {
		d := NewDocBuilder()
		d.Append("k", String(string(k)))
		d.Append("v", x)
		b.Append(d.Value())
		return true
	})
	return b.Value(), nil
})

var parseArrayToObject = unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
	if IsNullish(v) {
		return Null, nil
	}
	if v.Type != bsoncore.TypeArray {
		return Missing, errs.New(errs.Location40386, "$arrayToObject requires an array input, found: %s", bsonutil.TypeName(v.Type))
	}
	var keys []string
	vals := map[string]bsoncore.Value{}
	var err error
	kind := 0 // 1 pairs, 2 k/v docs
	forEach(v.Data, func(_ []byte, x bsoncore.Value) bool {
		var k, val bsoncore.Value
		switch x.Type {
		case bsoncore.TypeArray:
			if kind == 2 {
				err = errs.New(errs.Location40391, "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Object found, but array was expected")
				return false
			}
			kind = 1
			p := values(x)
			if len(p) != 2 {
				err = errs.New(errs.Location40397, "$arrayToObject requires an array of size 2 arrays,found array of size: %d", len(p))
				return false
			}
			k, val = p[0], p[1]
		case bsoncore.TypeEmbeddedDocument:
			if kind == 1 {
				err = errs.New(errs.Location40391, "$arrayToObject requires a consistent input format. Elements must all be arrays or all be objects. Array found, but object was expected")
				return false
			}
			kind = 2
			raw := rawSpec(x)
			if len(raw) != 2 || raw["k"].Type == 0 || raw["v"].Type == 0 {
				err = errs.New(errs.Location40392, "$arrayToObject requires an object keys of 'k' and 'v'. Found incorrect number of keys:%d", len(raw))
				return false
			}
			k, val = raw["k"], raw["v"]
		default:
			err = errs.New(errs.Location40398, "Unrecognised input type format for $arrayToObject: %s", bsonutil.TypeName(x.Type))
			return false
		}
		if k.Type != bsoncore.TypeString {
			err = errs.New(errs.Location40394, "$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: %s", bsonutil.TypeName(k.Type))
			return false
		}
		ks := k.StringValue()
		if len(ks) > 0 && ks[0] == '$' {
			err = errs.New(errs.Location5217400, "Invalid key '%s' for $arrayToObject, keys cannot begin with '$'", ks)
			return false
		}
		if _, ok := vals[ks]; !ok {
			keys = append(keys, ks)
		}
		vals[ks] = val
		return true
	})
	if err != nil {
		return Missing, err
	}
	d := NewDocBuilder()
	for _, k := range keys {
		d.Append(k, vals[k])
	}
	return d.Value(), nil
})

// parseNOp implements $firstN, $lastN, $maxN and $minN on arrays.
func parseNOp(kind string) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		if args.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location5787801, "specification must be an object; found %s", bsonutil.TypeName(args.Type))
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
				sort.SliceStable(kept, func(i, j int) bool { return bsonutil.Compare(kept[i], kept[j])*dir < 0 })
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

// Key returns the i-th sort key of v (a document) as $sort extracts it;
// the result is missing for an empty array (sorting before null).
func (s *SortSpec) Key(v bsoncore.Value, i int) bsoncore.Value {
	return sortKeyOf(v, s.Fields[i], s.Dirs[i])
}

// CompareKeys orders two key lists extracted with Key.
func (s *SortSpec) CompareKeys(a, b []bsoncore.Value) int {
	for i := range s.Dirs {
		var c int
		if a[i].Type == 0 || b[i].Type == 0 {
			c = cmpMissing(a[i], b[i])
		} else {
			c = bsonutil.Compare(a[i], b[i])
		}
		if c != 0 {
			return c * s.Dirs[i]
		}
	}
	return 0
}
