package query

import (
	"strconv"

	"github.com/lodedb/lode/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ExprNode is {$expr: <aggregation expression>}: it matches when the
// expression, evaluated against the document by package expr, is truthy
// (anything but false, null, undefined, missing and numeric zero). An
// evaluation error makes the document not match.
type ExprNode struct {
	// Expr is the raw expression argument.
	Expr bsoncore.Value
	// Parsed is the parsed expression.
	Parsed expr.Expr
}

// exprFunc evaluates a parsed expression against a document. A zero Value
// means missing.
type exprFunc func(doc []byte) (bsoncore.Value, error)

// compileExpr parses an aggregation expression with package expr.
func compileExpr(v bsoncore.Value) (exprFunc, error) {
	e, err := expr.Parse(v, expr.NewParseContext())
	if err != nil {
		return nil, err
	}
	return func(doc []byte) (bsoncore.Value, error) { return e.Eval(doc, nil) }, nil
}

func newExprNode(v bsoncore.Value) (Node, error) {
	e, err := expr.Parse(v, expr.NewParseContext())
	if err != nil {
		return nil, err
	}
	return &ExprNode{Expr: v, Parsed: e}, nil
}

func (n *ExprNode) match(doc []byte, _ *int) bool {
	r, err := n.Parsed.Eval(doc, nil)
	return err == nil && expr.Truthy(r)
}

// matchValue is false: $expr applies only to whole documents.
func (n *ExprNode) matchValue(bsoncore.Value, *int) bool { return false }

func itoa(i int) string { return strconv.Itoa(i) }
