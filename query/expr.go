package query

import (
	"github.com/lodedb/lode/bsonutil"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ExprNode is {$expr: <aggregation expression>}: it matches when the
// expression, evaluated against the document, is truthy (anything but
// false, null, undefined, missing and numeric zero).
type ExprNode struct {
	// Expr is the raw expression argument.
	Expr bsoncore.Value
	eval exprFunc
}

// exprFunc evaluates an expression against a document. A zero Value means
// missing.
type exprFunc func(doc []byte) bsoncore.Value

func newExprNode(v bsoncore.Value) (Node, error) {
	f, err := compileExpr(v)
	if err != nil {
		return nil, err
	}
	return &ExprNode{Expr: v, eval: f}, nil
}

func (n *ExprNode) match(doc []byte, _ *int) bool { return truthy(n.eval(doc)) }

// matchValue is false: $expr applies only to whole documents.
func (n *ExprNode) matchValue(bsoncore.Value, *int) bool { return false }

// truthy is MongoDB's aggregation truthiness.
func truthy(v bsoncore.Value) bool {
	switch v.Type {
	case 0, bsoncore.TypeNull, bsoncore.TypeUndefined:
		return false
	case bsoncore.TypeBoolean:
		return v.Boolean()
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		return bsonutil.CompareNumbers(v, bsoncore.Value{Type: bsoncore.TypeInt32, Data: []byte{0, 0, 0, 0}}) != 0 || isNaN(v)
	}
	return true
}
