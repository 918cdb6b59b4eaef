package expr

import (
	"math"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$size": parseSize, "$arrayElemAt": parseArrayElemAt, "$first": parseFirstLast(true),
		"$last": parseFirstLast(false), "$filter": parseFilter, "$map": parseMap,
		"$reduce": parseReduce, "$in": parseIn, "$slice": parseSlice,
		"$concatArrays": parseConcatArrays, "$reverseArray": parseReverseArray,
		"$range": parseRange, "$isArray": parseIsArray, "$indexOfArray": parseIndexOfArray,
	})
}

var parseSize = unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
	if v.Type != bsoncore.TypeArray {
		return Missing, errs.New(errs.Location17124, "The argument to $size must be an array. Type of argument was: %s", bsonutil.TypeName(v.Type))
	}
	return Int32(int32(arrayLen(v))), nil
})

var parseIsArray = unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
	return Bool(v.Type == bsoncore.TypeArray), nil
})

var parseReverseArray = unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
	if IsNullish(v) {
		return Null, nil
	}
	if v.Type != bsoncore.TypeArray {
		return Missing, errs.New(errs.Location34435, "The argument to $reverseArray must be an array, but was of type: %s", bsonutil.TypeName(v.Type))
	}
	vs := values(v)
	b := NewArrayBuilder()
	for i := len(vs) - 1; i >= 0; i-- {
		b.Append(vs[i])
	}
	return b.Value(), nil
})

func parseFirstLast(first bool) opParser {
	return unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
		if IsNullish(v) {
			return Null, nil
		}
		if v.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location28689, "%s's argument must be an array, but is %s", name, bsonutil.TypeName(v.Type))
		}
		vs := values(v)
		if len(vs) == 0 {
			return Missing, nil
		}
		if first {
			return vs[0], nil
		}
		return vs[len(vs)-1], nil
	})
}

// elemAt returns arr[idx] with negative indexes from the end; missing when
// out of range.
func elemAt(arr bsoncore.Value, idx int64) bsoncore.Value {
	vs := values(arr)
	if idx < 0 {
		idx += int64(len(vs))
	}
	if idx < 0 || idx >= int64(len(vs)) {
		return Missing
	}
	return vs[idx]
}

func parseArrayElemAt(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	return binaryAny(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		if IsNullish(a) || IsNullish(b) {
			return Null, nil
		}
		if a.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location28689, "$arrayElemAt's first argument must be an array, but is %s", bsonutil.TypeName(a.Type))
		}
		if !isNum(b) {
			return Missing, errs.New(errs.Location28690, "$arrayElemAt's second argument must be a numeric value, but is %s", bsonutil.TypeName(b.Type))
		}
		i, ok := asIntegral(b)
		if !ok || i < math.MinInt32 || i > math.MaxInt32 {
			return Missing, errs.New(errs.Location28691, "$arrayElemAt's second argument must be representable as a 32-bit integer: %s", bsonutil.FormatValue(b, msgStyle))
		}
		return elemAt(a, i), nil
	})
}

// binaryAny parses a two-argument operator.
func binaryAny(name string, args bsoncore.Value, pc *ParseContext, f func(a, b bsoncore.Value) (bsoncore.Value, error)) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 2)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		a, err := es[0].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		b, err := es[1].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		return f(a, b)
	}), nil
}

// parseAs parses an 'as' variable name (default def) and defines it in a
// new scope, which the caller must pop.
func parseAs(asV bsoncore.Value, def string, pc *ParseContext) (int, error) {
	name := def
	if asV.Type != 0 {
		if asV.Type != bsoncore.TypeString {
			return 0, errs.New(errs.FailedToParse, "'as' must be a string, found %s", bsonutil.TypeName(asV.Type))
		}
		name = asV.StringValue()
	}
	if err := ValidateUserVarName(name, true); err != nil { // a defined name: mongod's write checks (16866-16868)
		return 0, err
	}
	pc.push()
	return pc.defineScoped(name), nil
}

func rawSpec(args bsoncore.Value) map[string]bsoncore.Value {
	out := map[string]bsoncore.Value{}
	forEach(args.Data, func(k []byte, v bsoncore.Value) bool {
		out[string(k)] = v
		return true
	})
	return out
}

func checkKeys(name string, raw map[string]bsoncore.Value, code errs.Code, allowed ...string) error {
	for k := range raw {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			return errs.New(code, "Unrecognized parameter to %s: %s", name, k)
		}
	}
	return nil
}

func ensureVars(vars *Vars) *Vars {
	if vars == nil {
		return &Vars{}
	}
	return vars
}

func parseFilter(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location28646, "$filter only supports an object as its argument")
	}
	raw := rawSpec(args)
	if err := checkKeys(name, raw, errs.Location28647, "input", "as", "cond", "limit"); err != nil {
		return nil, err
	}
	if raw["input"].Type == 0 {
		return nil, errs.New(errs.Location28648, "Missing 'input' parameter to $filter")
	}
	if raw["cond"].Type == 0 {
		return nil, errs.New(errs.Location28650, "Missing 'cond' parameter to $filter")
	}
	input, err := parse(raw["input"], pc)
	if err != nil {
		return nil, err
	}
	var limit Expr
	if raw["limit"].Type != 0 {
		if limit, err = parse(raw["limit"], pc); err != nil {
			return nil, err
		}
	}
	slot, err := parseAs(raw["as"], "this", pc)
	if err != nil {
		return nil, err
	}
	cond, err := parse(raw["cond"], pc)
	pc.pop()
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vars = ensureVars(vars)
		in, err := input.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		n := int64(math.MaxInt64)
		if limit != nil {
			lv, err := limit.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if !IsNullish(lv) {
				l, ok := asIntegral(lv)
				if !ok || l < math.MinInt32 || l > math.MaxInt32 {
					return Missing, errs.New(errs.Location327391, "$filter: limit must be represented as a 32-bit integral value: %s", bsonutil.FormatValue(lv, msgStyle))
				}
				if l < 1 {
					return Missing, errs.New(errs.Location327392, "$filter: limit must be greater than 0: %d", l)
				}
				n = l
			}
		}
		if IsNullish(in) {
			return Null, nil
		}
		if in.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location28651, "input to $filter must be an array not %s", bsonutil.TypeName(in.Type))
		}
		b := NewArrayBuilder()
		forEach(in.Data, func(_ []byte, x bsoncore.Value) bool {
			if err = vars.tick(); err != nil {
				return false
			}
			vars.Set(slot, x)
			var c bsoncore.Value
			c, err = cond.Eval(doc, vars)
			if err != nil {
				return false
			}
			if Truthy(c) {
				b.Append(x)
			}
			return int64(b.Len()) < n
		})
		if err != nil {
			return Missing, err
		}
		return b.Value(), nil
	}), nil
}

func parseMap(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location16878, "$map only supports an object as its argument")
	}
	raw := rawSpec(args)
	if err := checkKeys(name, raw, errs.Location16879, "input", "as", "in"); err != nil {
		return nil, err
	}
	if raw["input"].Type == 0 {
		return nil, errs.New(errs.Location16880, "Missing 'input' parameter to $map")
	}
	if raw["in"].Type == 0 {
		return nil, errs.New(errs.Location16882, "Missing 'in' parameter to $map")
	}
	input, err := parse(raw["input"], pc)
	if err != nil {
		return nil, err
	}
	slot, err := parseAs(raw["as"], "this", pc)
	if err != nil {
		return nil, err
	}
	inE, err := parse(raw["in"], pc)
	pc.pop()
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vars = ensureVars(vars)
		in, err := input.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(in) {
			return Null, nil
		}
		if in.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location16883, "input to $map must be an array not %s", bsonutil.TypeName(in.Type))
		}
		b := NewArrayBuilder()
		forEach(in.Data, func(_ []byte, x bsoncore.Value) bool {
			if err = vars.tick(); err != nil {
				return false
			}
			vars.Set(slot, x)
			var r bsoncore.Value
			r, err = inE.Eval(doc, vars)
			if err != nil {
				return false
			}
			if r.Type == 0 {
				r = Null
			}
			b.Append(r)
			if err = vars.checkBuilt("$map", len(b.buf)); err != nil {
				return false
			}
			return true
		})
		if err != nil {
			return Missing, err
		}
		return b.Value(), nil
	}), nil
}

func parseReduce(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location40075, "$reduce requires an object as an argument, found: %s", bsonutil.TypeName(args.Type))
	}
	raw := rawSpec(args)
	if err := checkKeys(name, raw, errs.Location40076, "input", "initialValue", "in"); err != nil {
		return nil, err
	}
	for i, k := range []string{"input", "initialValue", "in"} {
		if raw[k].Type == 0 {
			// mongod: 40077, 40078, 40079, one code per missing field.
			return nil, errs.New(errs.Location40077+errs.Code(i), "$reduce requires '%s' to be specified", k)
		}
	}
	input, err := parse(raw["input"], pc)
	if err != nil {
		return nil, err
	}
	initE, err := parse(raw["initialValue"], pc)
	if err != nil {
		return nil, err
	}
	pc.push()
	valSlot := pc.defineScoped("value")
	thisSlot := pc.defineScoped("this")
	inE, err := parse(raw["in"], pc)
	pc.pop()
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vars = ensureVars(vars)
		in, err := input.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(in) {
			return Null, nil
		}
		if in.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location40080, "$reduce requires that 'input' be an array, found: %s", bsonutil.TypeName(in.Type))
		}
		acc, err := initE.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		forEach(in.Data, func(_ []byte, x bsoncore.Value) bool {
			// An iteration costs about the size of the value it carries
			// (a copy): a large one counts for more (one tick a KB).
			if err = vars.tickN(1 + len(acc.Data)>>10); err != nil {
				return false
			}
			vars.Set(valSlot, acc)
			vars.Set(thisSlot, x)
			acc, err = inE.Eval(doc, vars)
			return err == nil
		})
		if err != nil {
			return Missing, err
		}
		return acc, nil
	}), nil
}

func parseIn(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	coll := pc.Collator
	return binaryAny(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		if b.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location40081, "$in requires an array as a second argument, found: %s", bsonutil.TypeName(b.Type))
		}
		found := false
		forEach(b.Data, func(_ []byte, x bsoncore.Value) bool {
			found = CompareWith(coll, a, x) == 0
			return !found
		})
		return Bool(found), nil
	})
}

func parseSlice(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 3)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		for _, v := range vs {
			if IsNullish(v) {
				return Null, nil
			}
		}
		if vs[0].Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location28724, "First argument to $slice must be an array, but is of type: %s", bsonutil.TypeName(vs[0].Type))
		}
		if !isNum(vs[1]) {
			return Missing, errs.New(errs.Location28725, "Second argument to $slice must be a numeric value, but is of type: %s", bsonutil.TypeName(vs[1].Type))
		}
		p, ok := asIntegral(vs[1])
		if !ok || p != int64(int32(p)) {
			return Missing, errs.New(errs.Location28726, "Second argument to $slice can't be represented as a 32-bit integer: %s", bsonutil.FormatValue(vs[1], msgStyle))
		}
		arr := values(vs[0])
		size := int64(len(arr))
		var start, end int64
		if len(vs) == 2 {
			if p >= 0 {
				start, end = 0, min(p, size)
			} else {
				start, end = max(0, size+p), size
			}
		} else {
			if !isNum(vs[2]) {
				return Missing, errs.New(errs.Location28727, "Third argument to $slice must be numeric, but is of type: %s", bsonutil.TypeName(vs[2].Type))
			}
			n, ok := asIntegral(vs[2])
			if !ok || n != int64(int32(n)) {
				return Missing, errs.New(errs.Location28728, "Third argument to $slice can't be represented as a 32-bit integer: %s", bsonutil.FormatValue(vs[2], msgStyle))
			}
			if n <= 0 {
				return Missing, errs.New(errs.Location28729, "Third argument to $slice must be positive: %s", bsonutil.FormatValue(vs[2], msgStyle))
			}
			if p < 0 {
				start = max(0, size+p)
			} else {
				start = min(p, size)
			}
			end = min(size, start+n)
		}
		return Array(arr[start:end]...), nil
	}), nil
}

func parseConcatArrays(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		b := NewArrayBuilder()
		var err error
		for _, e := range es {
			var v bsoncore.Value
			v, err = e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(v) {
				return Null, nil
			}
			if v.Type != bsoncore.TypeArray {
				return Missing, errs.New(errs.Location28664, "$concatArrays only supports arrays, not %s", bsonutil.TypeName(v.Type))
			}
			forEach(v.Data, func(_ []byte, x bsoncore.Value) bool {
				if err = vars.tick(); err != nil {
					return false
				}
				b.Append(x)
				if err = vars.checkBuilt("$concatArrays", len(b.buf)); err != nil {
					return false
				}
				return true
			})
			if err != nil {
				return Missing, err
			}
		}
		return b.Value(), nil
	}), nil
}

func parseRange(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 3)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		labels := []string{"starting value", "ending value", "step value"}
		codes := []errs.Code{34443, 34445, 34447}
		nums := []int64{0, 0, 1}
		for i, v := range vs {
			if !isNum(v) {
				return Missing, errs.New(codes[i], "$range requires a numeric %s, found value of type: %s", labels[i], bsonutil.TypeName(v.Type))
			}
			x, ok := asIntegral(v)
			if !ok || x < math.MinInt32 || x > math.MaxInt32 {
				return Missing, errs.New(codes[i]+1, "$range requires a %s that can be represented as a 32-bit integer, found value: %s", labels[i], bsonutil.FormatValue(v, msgStyle))
			}
			nums[i] = x
		}
		if nums[2] == 0 {
			return Missing, errs.New(errs.Location34449, "$range requires a non-zero step value")
		}
		if need := rangeMemory(nums[0], nums[1], nums[2]); need >= MaxRangeBytes {
			return Missing, rangeMemoryErr(need)
		}
		b := NewArrayBuilder()
		for x := nums[0]; (nums[2] > 0 && x < nums[1]) || (nums[2] < 0 && x > nums[1]); x += nums[2] {
			if err := vars.tick(); err != nil {
				return Missing, err
			}
			b.Append(Int32(int32(x)))
		}
		return b.Value(), nil
	}), nil
}

func parseIndexOfArray(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 4)
	if err != nil {
		return nil, err
	}
	coll := pc.Collator
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(vs[0]) {
			return Null, nil
		}
		if vs[0].Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location40090, "$indexOfArray requires an array as a first argument, found: %s", bsonutil.TypeName(vs[0].Type))
		}
		arr := values(vs[0])
		start, end := int64(0), int64(len(arr))
		for i, bound := range vs[2:] {
			x, ok := asIntegral(bound)
			if !ok {
				return Missing, errs.New(errs.Location40096, "$indexOfArray requires an integral %s index, found a value of type: %s, with value: %s", []string{"starting", "ending"}[i], bsonutil.TypeName(bound.Type), bsonutil.FormatValue(bound, msgStyle))
			}
			if x < 0 {
				return Missing, errs.New(errs.Location40097, "$indexOfArray requires a nonnegative %s index, found: %d", []string{"starting", "ending"}[i], x)
			}
			if i == 0 {
				start = x
			} else {
				end = min(x, end)
			}
		}
		for i := start; i < end; i++ {
			if CompareWith(coll, arr[i], vs[1]) == 0 {
				return Int32(int32(i)), nil
			}
		}
		return Int32(-1), nil
	}), nil
}

func orNull(v bsoncore.Value) bsoncore.Value {
	if v.Type == 0 {
		return Null
	}
	return v
}
