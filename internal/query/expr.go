package query

import (
	"strconv"

	"github.com/lodedb/lode/internal/expr"
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
	// Vars binds the command's let variables (nil: none).
	Vars *expr.Vars
}

// exprFunc evaluates a parsed expression against a document. A zero Value
// means missing.
type exprFunc func(doc []byte) (bsoncore.Value, error)

// compileExpr parses an aggregation expression with package expr. Its
// evaluations share vars ($$NOW fixed at the first, the operation's
// context once set with Projection.SetContext).
func compileExpr(v bsoncore.Value) (exprFunc, *expr.Vars, error) {
	e, err := expr.Parse(v, expr.NewParseContext())
	if err != nil {
		return nil, nil, err
	}
	vars := new(expr.Vars)
	return func(doc []byte) (bsoncore.Value, error) { return e.Eval(doc, vars) }, vars, nil
}

func (p *parser) newExprNode(v bsoncore.Value) (Node, error) {
	epc := p.epc
	if epc == nil {
		epc = expr.NewParseContext()
	}
	e, err := expr.Parse(v, epc)
	if err != nil {
		return nil, err
	}
	return &ExprNode{Expr: v, Parsed: e, Vars: p.vars}, nil
}

func (n *ExprNode) match(doc []byte, _ *int) bool {
	r, err := n.Parsed.Eval(doc, n.Vars)
	return err == nil && expr.Truthy(r)
}

// matchValue is false: $expr applies only to whole documents.
func (n *ExprNode) matchValue(bsoncore.Value, *int) bool { return false }

func itoa(i int) string { return strconv.Itoa(i) }
