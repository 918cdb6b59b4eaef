package expr

import (
	"sort"
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// opParser parses the argument of one operator.
type opParser func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error)

var operators = map[string]opParser{}

// register adds operator parsers; called from init functions of the
// operator family files.
func register(m map[string]opParser) {
	for k, v := range m {
		operators[k] = v
	}
}

// Operators returns the sorted names of all supported operators.
func Operators() []string {
	out := make([]string, 0, len(operators))
	for k := range operators {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// IsOperator reports whether name (with its "$") is a known expression
// operator.
func IsOperator(name string) bool { _, ok := operators[name]; return ok }

// exprFunc adapts a function to Expr.
type exprFunc func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error)

func (f exprFunc) Eval(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
	return f(doc, vars)
}

// constExpr is a literal value.
type constExpr struct{ v bsoncore.Value }

func (c constExpr) Eval(bsoncore.Document, *Vars) (bsoncore.Value, error) { return c.v, nil }

// Const returns an expression that always evaluates to v.
func Const(v bsoncore.Value) Expr { return constExpr{v} }

// IsConst reports whether e is a constant, and its value.
func IsConst(e Expr) (bsoncore.Value, bool) {
	c, ok := e.(constExpr)
	return c.v, ok
}

// Parse parses v as an aggregation expression. Malformed BSON is rejected
// with InvalidBSON.
func Parse(v bsoncore.Value, pc *ParseContext) (e Expr, err error) {
	if pc == nil {
		pc = NewParseContext()
	}
	if !validDeep(v, 0) {
		return nil, errs.New(errs.InvalidBSON, "invalid BSON in expression")
	}
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, errs.New(errs.InvalidBSON, "invalid BSON in expression: %v", r)
		}
	}()
	return parse(v, pc)
}

// validDeep checks v and, for documents and arrays, every nested value.
func validDeep(v bsoncore.Value, depth int) bool {
	if depth > 200 || v.Validate() != nil {
		return false
	}
	if v.Type != bsoncore.TypeEmbeddedDocument && v.Type != bsoncore.TypeArray {
		return true
	}
	if bsoncore.Document(v.Data).Validate() != nil {
		return false
	}
	ok := true
	forEach(v.Data, func(_ []byte, x bsoncore.Value) bool {
		ok = validDeep(x, depth+1)
		return ok
	})
	return ok
}

func parse(v bsoncore.Value, pc *ParseContext) (Expr, error) {
	switch v.Type {
	case bsoncore.TypeString:
		s := v.StringValue()
		if strings.HasPrefix(s, "$") {
			return parseFieldPath(s, pc)
		}
		return constExpr{v}, nil
	case bsoncore.TypeEmbeddedDocument:
		return parseObject(v.Document(), pc)
	case bsoncore.TypeArray:
		return parseArray(v, pc)
	}
	return constExpr{v}, nil
}

// ParseDocument parses a document whose fields are expressions (e.g. the
// spec of $addFields) into an expression building that document.
func ParseDocument(d bsoncore.Document, pc *ParseContext) (Expr, error) {
	return parseObject(d, pc)
}

func parseArray(v bsoncore.Value, pc *ParseContext) (Expr, error) {
	var elems []Expr
	allConst := true
	var err error
	forEach(v.Data, func(_ []byte, x bsoncore.Value) bool {
		var e Expr
		e, err = parse(x, pc)
		if err != nil {
			return false
		}
		if _, ok := e.(constExpr); !ok {
			allConst = false
		}
		elems = append(elems, e)
		return true
	})
	if err != nil {
		return nil, err
	}
	if allConst {
		// The elements' values, not the raw array: an element such as
		// {$literal: 5} is a constant whose value is 5.
		b := bsoncore.NewArrayBuilder()
		for _, e := range elems {
			b.AppendValue(e.(constExpr).v)
		}
		arr := b.Build()
		return constExpr{bsoncore.Value{Type: bsoncore.TypeArray, Data: arr}}, nil
	}
	return arrayExpr(elems), nil
}

type arrayExpr []Expr

func (a arrayExpr) Eval(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
	b := NewArrayBuilder()
	for _, e := range a {
		x, err := e.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if x.Type == 0 {
			x = Null
		}
		b.Append(x)
		if err := vars.checkBuilt("an array expression", len(b.buf)); err != nil {
			return Missing, err
		}
	}
	return b.Value(), nil
}

type objField struct {
	name string
	e    Expr
}

type objectExpr []objField

func (o objectExpr) Eval(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
	b := NewDocBuilder()
	for _, f := range o {
		x, err := f.e.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		b.Append(f.name, x)
		if err := vars.checkBuilt("an object expression", len(b.buf)); err != nil {
			return Missing, err
		}
	}
	return b.Value(), nil
}

func parseObject(d bsoncore.Document, pc *ParseContext) (Expr, error) {
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid expression document: %v", err)
	}
	if len(elems) > 0 && strings.HasPrefix(elems[0].Key(), "$") {
		if len(elems) != 1 {
			return nil, errs.New(errs.Location15983, "an expression specification must contain exactly one field, the name of the expression. Found %d fields in %s, while parsing object %s", len(elems), d.String(), d.String())
		}
		name := elems[0].Key()
		p, ok := operators[name]
		if !ok {
			return nil, errs.New(errs.InvalidPipelineOperator, "Unrecognized expression '%s'", name)
		}
		return p(name, elems[0].Value(), pc)
	}
	out := make(objectExpr, 0, len(elems))
	seen := map[string]bool{}
	for _, el := range elems {
		k := el.Key()
		if k == "" {
			return nil, errs.New(errs.Location16410, "FieldPath field names may not be empty strings.")
		}
		if strings.HasPrefix(k, "$") {
			return nil, errs.New(errs.Location16404, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
		if strings.Contains(k, ".") {
			return nil, errs.New(errs.Location16412, "FieldPath field names may not contain '.'. Consider using $getField or $setField.")
		}
		if seen[k] {
			return nil, errs.New(errs.Location16406, "duplicate field name specified in object literal: %s", d.String())
		}
		seen[k] = true
		e, err := parse(el.Value(), pc)
		if err != nil {
			return nil, err
		}
		out = append(out, objField{k, e})
	}
	return out, nil
}

// parseArgs parses an operator's argument: an array gives one expression
// per element, anything else a single expression.
func parseArgs(args bsoncore.Value, pc *ParseContext) ([]Expr, error) {
	if args.Type != bsoncore.TypeArray {
		e, err := parse(args, pc)
		if err != nil {
			return nil, err
		}
		return []Expr{e}, nil
	}
	var out []Expr
	var err error
	forEach(args.Data, func(_ []byte, x bsoncore.Value) bool {
		var e Expr
		e, err = parse(x, pc)
		if err != nil {
			return false
		}
		out = append(out, e)
		return true
	})
	return out, err
}

// parseN parses args and checks the argument count.
func parseN(name string, args bsoncore.Value, pc *ParseContext, min, max int) ([]Expr, error) {
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	if len(es) < min || (max >= 0 && len(es) > max) {
		return nil, arityError(name, len(es), min, max)
	}
	return es, nil
}

func arityError(name string, n, min, max int) error {
	switch {
	case min == max:
		return errs.New(errs.Location16020, "Expression %s takes exactly %d arguments. %d were passed in.", name, min, n)
	case max < 0:
		return errs.New(errs.Location16020, "Expression %s takes at least %d arguments, but %d were passed in.", name, min, n)
	}
	// mongod's ranged-arity expressions ($round, $slice, $indexOfBytes..)
	// have their own code.
	return errs.New(errs.Code(28667), "Expression %s takes at least %d arguments, and at most %d, but %d were passed in.", name, min, max, n)
}

// parseSpec parses an operator whose argument is a document of named
// parameters; required lists mandatory names, allowed all accepted ones.
func parseSpec(name string, args bsoncore.Value, pc *ParseContext, required []string, allowed ...string) (map[string]Expr, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.FailedToParse, "%s only supports an object as its argument", name)
	}
	out := map[string]Expr{}
	elems, err := args.Document().Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "%s: %v", name, err)
	}
	for _, el := range elems {
		k := el.Key()
		ok := false
		for _, a := range allowed {
			if a == k {
				ok = true
			}
		}
		for _, a := range required {
			if a == k {
				ok = true
			}
		}
		if !ok {
			return nil, errs.New(errs.FailedToParse, "%s found an unknown argument: %s", name, k)
		}
		e, err := parse(el.Value(), pc)
		if err != nil {
			return nil, err
		}
		out[k] = e
	}
	for _, r := range required {
		if _, ok := out[r]; !ok {
			return nil, errs.New(errs.FailedToParse, "Missing '%s' parameter to %s", r, name)
		}
	}
	return out, nil
}

// evalAll evaluates a list of expressions.
func evalAll(es []Expr, doc bsoncore.Document, vars *Vars) ([]bsoncore.Value, error) {
	out := make([]bsoncore.Value, len(es))
	for i, e := range es {
		v, err := e.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// evalOpt evaluates e if non-nil, else returns missing.
func evalOpt(e Expr, doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
	if e == nil {
		return Missing, nil
	}
	return e.Eval(doc, vars)
}

// msgStyle is how error messages quote an operand's value: as extended
// JSON, "missing" for an absent one, as they always have (mongod prints
// its Value::toString form; see bsonutil.Style).
var msgStyle = bsonutil.Style{JSON: true}
