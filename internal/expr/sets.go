package expr

import (
	"sort"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$setUnion": parseSetNary(true), "$setIntersection": parseSetNary(false),
		"$setDifference": parseSetDifference, "$setEquals": parseSetEquals,
		"$setIsSubset": parseSetIsSubset, "$anyElementTrue": parseElemTrue(true),
		"$allElementsTrue": parseElemTrue(false),
	})
}

// uniq returns the distinct values of vs sorted in BSON order.
// Under a collation, values equal under it are one (the first met is
// kept).
func uniq(c *collation.Collator, vs []bsoncore.Value) []bsoncore.Value {
	sort.SliceStable(vs, func(i, j int) bool { return CompareWith(c, vs[i], vs[j]) < 0 })
	out := vs[:0]
	for i, v := range vs {
		if i == 0 || CompareWith(c, v, out[len(out)-1]) != 0 {
			out = append(out, v)
		}
	}
	return out
}

func contains(c *collation.Collator, set []bsoncore.Value, v bsoncore.Value) bool {
	i := sort.Search(len(set), func(i int) bool { return CompareWith(c, set[i], v) >= 0 })
	return i < len(set) && CompareWith(c, set[i], v) == 0
}

func parseSetNary(union bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		coll := pc.Collator
		es, err := parseArgs(args, pc)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			var acc []bsoncore.Value
			null := false
			for i, e := range es {
				v, err := e.Eval(doc, vars)
				if err != nil {
					return Missing, err
				}
				if IsNullish(v) {
					null = true
					continue
				}
				if v.Type != bsoncore.TypeArray {
					code := errs.Location17043
					if union {
						code = 17044
					}
					return Missing, errs.New(code, "All operands of %s must be arrays. One argument is of type: %s", name, bsonutil.TypeName(v.Type))
				}
				if err := vars.tickN(arrayLenHint(v)); err != nil {
					return Missing, err
				}
				s := uniq(coll, values(v))
				switch {
				case union || i == 0:
					acc = uniq(coll, append(acc, s...))
				default:
					kept := []bsoncore.Value{}
					for _, x := range acc {
						if err := vars.tick(); err != nil {
							return Missing, err
						}
						if contains(coll, s, x) {
							kept = append(kept, x)
						}
					}
					acc = kept
				}
			}
			if null {
				return Null, nil
			}
			return Array(acc...), nil
		}), nil
	}
}

func setArgs(coll *collation.Collator, name string, code errs.Code, vs ...bsoncore.Value) ([][]bsoncore.Value, bool, error) {
	var out [][]bsoncore.Value
	for i, v := range vs {
		if IsNullish(v) {
			return nil, true, nil
		}
		if v.Type != bsoncore.TypeArray {
			return nil, false, errs.New(code, "both operands of %s must be arrays. %s argument is of type: %s", name, []string{"First", "Second"}[min(i, 1)], bsonutil.TypeName(v.Type))
		}
		out = append(out, uniq(coll, values(v)))
	}
	return out, false, nil
}

func parseSetDifference(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	coll := pc.Collator
	return binaryAny(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		sets, null, err := setArgs(coll, name, errs.Location17048, a, b)
		if err != nil || null {
			return Null, err
		}
		// Each distinct value of a once, in the order first met: a value
		// is marked taken at its place in a's sorted distinct values, so
		// the pass is O(n log n) however large the arrays.
		var out []bsoncore.Value
		taken := make([]bool, len(sets[0]))
		for _, x := range values(a) {
			if contains(coll, sets[1], x) {
				continue
			}
			i := sort.Search(len(sets[0]), func(i int) bool { return CompareWith(coll, sets[0][i], x) >= 0 })
			if i < len(taken) && !taken[i] {
				taken[i] = true
				out = append(out, x)
			}
		}
		return Array(out...), nil
	})
}

func parseSetIsSubset(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	coll := pc.Collator
	return binaryAny(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		if a.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location17046, "both operands of $setIsSubset must be arrays. First argument is of type: %s", bsonutil.TypeName(a.Type))
		}
		if b.Type != bsoncore.TypeArray {
			return Missing, errs.New(errs.Location17042, "both operands of $setIsSubset must be arrays. Second argument is of type: %s", bsonutil.TypeName(b.Type))
		}
		sb := uniq(coll, values(b))
		for _, x := range values(a) {
			if !contains(coll, sb, x) {
				return valFalse, nil
			}
		}
		return valTrue, nil
	})
}

func parseSetEquals(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	coll := pc.Collator
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	if len(es) < 2 {
		return nil, errs.New(errs.Location17045, "$setEquals needs at least two arguments had: %d", len(es))
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		var first []bsoncore.Value
		for i, e := range es {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if v.Type != bsoncore.TypeArray {
				return Missing, errs.New(errs.Location17044, "All operands of $setEquals must be arrays. One argument is of type: %s", bsonutil.TypeName(v.Type))
			}
			s := uniq(coll, values(v))
			if i == 0 {
				first = s
				continue
			}
			if len(s) != len(first) {
				return valFalse, nil
			}
			for j := range s {
				if CompareWith(coll, s[j], first[j]) != 0 {
					return valFalse, nil
				}
			}
		}
		return valTrue, nil
	}), nil
}

func parseElemTrue(any bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseN(name, args, pc, 1, 1)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			v, err := es[0].Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if v.Type != bsoncore.TypeArray {
				code := errs.Location17040
				if any {
					code = 17041
				}
				return Missing, errs.New(code, "%s's argument must be an array, but is %s", name, bsonutil.TypeName(v.Type))
			}
			for _, x := range values(v) {
				if Truthy(x) == any {
					return Bool(any), nil
				}
			}
			return Bool(!any), nil
		}), nil
	}
}
