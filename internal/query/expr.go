package query

import (
	"strconv"
	"sync/atomic"

	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ExprNode is {$expr: <aggregation expression>}: it matches when the
// expression, evaluated against the document by package expr, is truthy
// (anything but false, null, undefined, missing and numeric zero). An
// evaluation error makes the document not match and is kept for the
// operation to fail with (Filter.Err), as mongod fails the query.
type ExprNode struct {
	// Expr is the raw expression argument.
	Expr bsoncore.Value
	// Parsed is the parsed expression.
	Parsed expr.Expr
	// Vars binds the command's let variables (nil: none).
	Vars *expr.Vars
	fail *evalFailure // the filter's, shared by its $expr nodes
}

// evalFailure holds the first evaluation error of a filter's $expr.
type evalFailure struct{ err atomic.Pointer[error] }

func (f *evalFailure) set(err error) { f.err.CompareAndSwap(nil, &err) }

// MatchChecked is MatchPositional that also returns the error a $expr
// of f met (Err): the operation fails with it instead of going on.
func (f *Filter) MatchChecked(doc bsoncore.Document) (matched bool, pos int, err error) {
	matched, pos = f.MatchPositional(doc)
	if err = f.Err(); err != nil {
		return false, -1, err
	}
	return matched, pos, nil
}

// Err returns the first error a $expr of f met while matching, or nil.
func (f *Filter) Err() error {
	if f == nil || f.fail == nil {
		return nil
	}
	if p := f.fail.err.Load(); p != nil {
		return *p
	}
	return nil
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
	if p.fail == nil {
		p.fail = new(evalFailure)
	}
	return &ExprNode{Expr: v, Parsed: e, Vars: p.vars, fail: p.fail}, nil
}

func (n *ExprNode) match(doc []byte, _ *int) bool {
	r, err := n.Parsed.Eval(doc, n.Vars)
	if err != nil {
		if n.fail != nil {
			n.fail.set(err)
		}
		return false
	}
	return expr.Truthy(r)
}

// matchValue is false: $expr applies only to whole documents.
func (n *ExprNode) matchValue(bsoncore.Value, *int) bool { return false }

func itoa(i int) string { return strconv.Itoa(i) }
