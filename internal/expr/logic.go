package expr

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$eq": cmpOp(func(c int) bool { return c == 0 }), "$ne": cmpOp(func(c int) bool { return c != 0 }),
		"$gt": cmpOp(func(c int) bool { return c > 0 }), "$gte": cmpOp(func(c int) bool { return c >= 0 }),
		"$lt": cmpOp(func(c int) bool { return c < 0 }), "$lte": cmpOp(func(c int) bool { return c <= 0 }),
		"$cmp": parseCmp, "$and": parseAndOr(true), "$or": parseAndOr(false), "$not": parseNot,
		"$cond": parseCond, "$ifNull": parseIfNull, "$switch": parseSwitch,
		"$literal": parseLiteral, "$const": parseLiteral, "$let": parseLet,
	})
}

// compareVals compares two evaluated values in MongoDB's order. Missing
// sorts with undefined, below null, as in MongoDB's expression
// comparisons ({$eq: ["$missing", null]} is false).
func compareVals(a, b bsoncore.Value) int {
	return bsonutil.Compare(a, b)
}

func cmpOp(pred func(int) bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseN(name, args, pc, 2, 2)
		if err != nil {
			return nil, err
		}
		cmp := compareVals // the simple collation's direct path
		if coll := pc.Collator; coll != nil {
			cmp = coll.Compare
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
			return Bool(pred(cmp(a, b))), nil
		}), nil
	}
}

func parseCmp(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 2)
	if err != nil {
		return nil, err
	}
	coll := pc.Collator
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		vs, err := evalAll(es, doc, vars)
		if err != nil {
			return Missing, err
		}
		return Int32(int32(CompareWith(coll, vs[0], vs[1]))), nil
	}), nil
}

func parseAndOr(and bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseArgs(args, pc)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			for _, e := range es {
				v, err := e.Eval(doc, vars)
				if err != nil {
					return Missing, err
				}
				if Truthy(v) != and {
					return Bool(!and), nil
				}
			}
			return Bool(and), nil
		}), nil
	}
}

var parseNot = unary(func(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	return Bool(!Truthy(v)), nil
})

func parseCond(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	var c, t, f Expr
	if args.Type == bsoncore.TypeEmbeddedDocument {
		var spec map[string]Expr
		elems, _ := args.Document().Elements()
		spec = map[string]Expr{}
		for _, el := range elems {
			k := el.Key()
			if k != "if" && k != "then" && k != "else" {
				return nil, errs.New(errs.Location17083, "Unrecognized parameter to $cond: %s", k)
			}
			e, err := parse(el.Value(), pc)
			if err != nil {
				return nil, err
			}
			spec[k] = e
		}
		for _, k := range []string{"if", "then", "else"} {
			if spec[k] == nil {
				return nil, errs.New(errs.Location17080+errs.Code(map[string]int32{"if": 0, "then": 1, "else": 2}[k]), "Missing '%s' parameter to $cond", k)
			}
		}
		c, t, f = spec["if"], spec["then"], spec["else"]
	} else {
		es, err := parseN(name, args, pc, 3, 3)
		if err != nil {
			return nil, err
		}
		c, t, f = es[0], es[1], es[2]
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		v, err := c.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if Truthy(v) {
			return t.Eval(doc, vars)
		}
		return f.Eval(doc, vars)
	}), nil
}

func parseIfNull(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	if len(es) < 2 {
		return nil, errs.New(errs.Location1257300, "$ifNull needs at least two arguments, had: %d", len(es))
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		for i, e := range es {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if !IsNullish(v) || i == len(es)-1 {
				return v, nil
			}
		}
		return Null, nil
	}), nil
}

func parseSwitch(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location40060, "$switch requires an object as an argument, found: %s", bsonutil.TypeName(args.Type))
	}
	type branch struct{ c, t Expr }
	var branches []branch
	var def Expr
	elems, _ := args.Document().Elements()
	for _, el := range elems {
		switch el.Key() {
		case "branches":
			bv := el.Value()
			if bv.Type != bsoncore.TypeArray {
				return nil, errs.New(errs.Location40061, "$switch expected an array for 'branches', found: %s", bsonutil.TypeName(bv.Type))
			}
			var perr error
			forEach(bv.Data, func(_ []byte, b bsoncore.Value) bool {
				if b.Type != bsoncore.TypeEmbeddedDocument {
					perr = errs.New(errs.Location40062, "$switch expected each branch to be an object, found: %s", bsonutil.TypeName(b.Type))
					return false
				}
				var br branch
				bel, _ := b.Document().Elements()
				for _, x := range bel {
					e, err := parse(x.Value(), pc)
					if err != nil {
						perr = err
						return false
					}
					switch x.Key() {
					case "case":
						br.c = e
					case "then":
						br.t = e
					default:
						perr = errs.New(errs.Location40063, "$switch found an unknown argument to a branch: %s", x.Key())
						return false
					}
				}
				if br.c == nil {
					perr = errs.New(errs.Location40064, "$switch requires each branch have a 'case' expression")
					return false
				}
				if br.t == nil {
					perr = errs.New(errs.Location40065, "$switch requires each branch have a 'then' expression.")
					return false
				}
				branches = append(branches, br)
				return true
			})
			if perr != nil {
				return nil, perr
			}
		case "default":
			e, err := parse(el.Value(), pc)
			if err != nil {
				return nil, err
			}
			def = e
		default:
			return nil, errs.New(errs.Location40067, "$switch found an unknown argument: %s", el.Key())
		}
	}
	if len(branches) == 0 {
		return nil, errs.New(errs.Location40068, "$switch requires at least one branch.")
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		for _, b := range branches {
			v, err := b.c.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if Truthy(v) {
				return b.t.Eval(doc, vars)
			}
		}
		if def == nil {
			return Missing, errs.New(errs.Location40066, "$switch could not find a matching branch for an input, and no default was specified.")
		}
		return def.Eval(doc, vars)
	}), nil
}

func parseLiteral(_ string, args bsoncore.Value, _ *ParseContext) (Expr, error) {
	return constExpr{args}, nil
}

func parseLet(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location16874, "$let only supports an object as its argument")
	}
	varsV, inV := Missing, Missing
	elems, _ := args.Document().Elements()
	for _, el := range elems {
		switch el.Key() {
		case "vars":
			varsV = el.Value()
		case "in":
			inV = el.Value()
		default:
			return nil, errs.New(errs.Location16875, "Unrecognized parameter to $let: %s", el.Key())
		}
	}
	if varsV.Type == 0 {
		return nil, errs.New(errs.Location16876, "Missing 'vars' parameter to $let")
	}
	if inV.Type == 0 {
		return nil, errs.New(errs.Location16877, "Missing 'in' parameter to $let")
	}
	if varsV.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.Location10065, "invalid parameter: expected an object (vars)")
	}
	type binding struct {
		slot int
		e    Expr
	}
	var bs []binding
	names := []string{}
	velems, _ := varsV.Document().Elements()
	for _, el := range velems {
		if err := ValidateUserVarName(el.Key(), true); err != nil {
			return nil, err
		}
		// initialisers see the outer scope
		e, err := parse(el.Value(), pc)
		if err != nil {
			return nil, err
		}
		bs = append(bs, binding{e: e})
		names = append(names, el.Key())
	}
	pc.push()
	for i := range bs {
		bs[i].slot = pc.defineScoped(names[i])
	}
	in, err := parse(inV, pc)
	pc.pop()
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		if vars == nil {
			vars = &Vars{}
		}
		vals := make([]bsoncore.Value, len(bs))
		for i, b := range bs {
			v, err := b.e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			vals[i] = v
		}
		for i, b := range bs {
			vars.Set(b.slot, vals[i])
		}
		return in.Eval(doc, vars)
	}), nil
}
