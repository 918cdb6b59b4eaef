package expr

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The bitwise operators (MongoDB 6.3+): $bitAnd, $bitOr and $bitXor fold
// their int and long operands (an int result unless a long is among
// them; no operands give the identity: -1, 0, 0); $bitNot complements one.
// A null or missing operand makes the result null.

func init() {
	register(map[string]opParser{
		"$bitAnd": bitFold(-1, func(a, b int64) int64 { return a & b }),
		"$bitOr":  bitFold(0, func(a, b int64) int64 { return a | b }),
		"$bitXor": bitFold(0, func(a, b int64) int64 { return a ^ b }),
		"$bitNot": unaryNullable(bitNot),
	})
}

func bitFold(identity int64, f func(a, b int64) int64) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseArgs(args, pc)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			acc, long := identity, false
			for _, e := range es {
				v, err := e.Eval(doc, vars)
				if err != nil {
					return Missing, err
				}
				if IsNullish(v) {
					return Null, nil
				}
				if v.Type != bsoncore.TypeInt32 && v.Type != bsoncore.TypeInt64 {
					return Missing, errs.New(errs.TypeMismatch, "%s only supports int and long operands.", name)
				}
				long = long || v.Type == bsoncore.TypeInt64
				acc = f(acc, bsonutil.AsInt64(v))
			}
			if long {
				return Int64(acc), nil
			}
			return Int32(int32(acc)), nil
		}), nil
	}
}

func bitNot(name string, v bsoncore.Value) (bsoncore.Value, error) {
	switch {
	case v.Type == bsoncore.TypeInt32:
		return Int32(^v.Int32()), nil
	case v.Type == bsoncore.TypeInt64:
		return Int64(^v.Int64()), nil
	case isNum(v):
		return Missing, errs.New(errs.TypeMismatch, "%s only supports int and long, not: %s.", name, bsonutil.TypeName(v.Type))
	}
	return Missing, errs.New(errs.Location28765, "%s only supports numeric types, not %s", name, bsonutil.TypeName(v.Type))
}
