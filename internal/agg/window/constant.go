package window

import (
	"strings"
	"time"

	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Constant is constant for other packages ($setWindowFields' partitionBy,
// which is no partitioning when constant).
func Constant(v bsoncore.Value, pc *expr.ParseContext) (bsoncore.Value, bool, error) {
	return constant(v, pc)
}

// constant evaluates an expression that mongod's optimizer would fold to
// a constant ($shift's default, window bounds): one that names no field
// or variable ("$..." strings outside $literal) and calls no
// non-deterministic operator. ok is false for any other expression.
func constant(v bsoncore.Value, pc *expr.ParseContext) (bsoncore.Value, bool, error) {
	if !isConstant(v) {
		return bsoncore.Value{}, false, nil
	}
	e, err := expr.Parse(v, pc)
	if err != nil {
		return bsoncore.Value{}, false, err
	}
	if c, ok := expr.IsConst(e); ok {
		return c, true, nil
	}
	c, err := e.Eval(emptyDoc, expr.NewVars(time.Now()))
	if err != nil {
		return bsoncore.Value{}, false, err
	}
	return bsoncore.Value{Type: c.Type, Data: append([]byte(nil), c.Data...)}, true, nil
}

func isConstant(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeString:
		return !strings.HasPrefix(v.StringValue(), "$")
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		for _, x := range vals {
			if !isConstant(x) {
				return false
			}
		}
		return true
	case bsoncore.TypeEmbeddedDocument:
		elems, _ := v.Document().Elements()
		for _, el := range elems {
			switch el.Key() {
			case "$literal":
				continue
			case "$rand", "$function", "$accumulator", "$meta":
				return false
			}
			if !isConstant(el.Value()) {
				return false
			}
		}
		return true
	}
	return true
}
