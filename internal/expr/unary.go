package expr

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// unary builds a one-argument operator that applies f to its argument's
// value, whatever its type.
func unary(f func(name string, v bsoncore.Value) (bsoncore.Value, error)) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseN(name, args, pc, 1, 1)
		if err != nil {
			return nil, err
		}
		arg := es[0]
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			v, err := arg.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			return f(name, v)
		}), nil
	}
}

// unaryNullable builds a one-argument operator that gives null for a null,
// undefined or missing argument and applies f to any other value. Most of
// the operators that take one value ($abs, $sin, $bsonSize, $tsSecond,
// $bitNot, $toInt...) share this shape.
func unaryNullable(f func(name string, v bsoncore.Value) (bsoncore.Value, error)) opParser {
	return unary(func(name string, v bsoncore.Value) (bsoncore.Value, error) {
		if IsNullish(v) {
			return Null, nil
		}
		return f(name, v)
	})
}

// numericOnly wraps f so that a value that is not a number fails with
// mongod's 28765, as the one-argument numeric operators do.
func numericOnly(f func(name string, v bsoncore.Value) (bsoncore.Value, error)) func(string, bsoncore.Value) (bsoncore.Value, error) {
	return func(name string, v bsoncore.Value) (bsoncore.Value, error) {
		if !isNum(v) {
			return Missing, errs.New(errs.Location28765, "%s only supports numeric types, not %s", name, bsonutil.TypeName(v.Type))
		}
		return f(name, v)
	}
}
