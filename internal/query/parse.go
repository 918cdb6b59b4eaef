package query

import (
	"github.com/lodedb/lode/internal/collation"
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Filter is a parsed find filter, ready to match documents.
type Filter struct {
	root Node
	coll *collation.Collator
	fail *evalFailure // where its $expr nodes keep an evaluation error (Err)
}

// Root returns the root of the match tree. A filter with several top-level
// predicates has an *AndNode root; the empty filter is an *AndNode with no
// children.
func (f *Filter) Root() Node { return f.root }

// Match reports whether doc matches the filter.
func (f *Filter) Match(doc bsoncore.Document) bool { return f.root.match(doc, nil) }

// MatchPositional reports whether doc matches and, if so, the offset of the
// array element that the positional $ operator refers to: the index, in the
// first array met on the matched path, of the element that matched (-1 when
// no array was involved).
func (f *Filter) MatchPositional(doc bsoncore.Document) (matched bool, pos int) {
	pos = -1
	if !f.root.match(doc, &pos) {
		return false, -1
	}
	return true, pos
}

// parse levels, as in MongoDB's parser.
const (
	levelPredicateTop = iota
	levelUserTop
	levelSubDocument
)

// maxParseDepth bounds filter nesting so that hostile input cannot exhaust
// the stack.
const maxParseDepth = 200

type parser struct {
	depth int
	// epc and vars, when set, are the command's let variables for $expr.
	epc  *expr.ParseContext
	vars *expr.Vars
	fail *evalFailure // set by the first $expr
}

// Parse parses and validates a find filter. Errors are *errs.Error with
// MongoDB's codes and messages.
func Parse(filter bsoncore.Document) (*Filter, error) {
	return ParseWithVars(filter, nil, nil)
}

// ParseWithVars is Parse for a command with `let` variables: $expr
// resolves $$name through epc (nil: none) and evaluates with vars, which
// must stay bound for as long as the filter is used.
func ParseWithVars(filter bsoncore.Document, epc *expr.ParseContext, vars *expr.Vars) (*Filter, error) {
	if err := validateDoc(filter); err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid filter document: %v", err)
	}
	p := &parser{epc: epc, vars: vars}
	root, err := p.parseDoc(filter, levelPredicateTop)
	if err != nil {
		return nil, err
	}
	return &Filter{root: root, fail: p.fail}, nil
}

// simplify unwraps an AND of a single child.
func simplify(n Node) Node {
	if a, ok := n.(*AndNode); ok && len(a.Children) == 1 {
		return a.Children[0]
	}
	return n
}

// parseDoc parses a filter document into an AND of its predicates (or the
// single predicate when there is one).
func (p *parser) parseDoc(doc bsoncore.Document, level int) (Node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxParseDepth {
		return nil, errs.New(errs.BadValue, "filter exceeds the maximum nesting depth of %d", maxParseDepth)
	}
	next := level
	if level == levelPredicateTop {
		next = levelUserTop
	}
	and := &AndNode{}
	elems, err := doc.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid filter document: %v", err)
	}
	for _, e := range elems {
		key, v := e.Key(), e.Value()
		if strings.HasPrefix(key, "$") {
			n, err := p.parsePathless(key, v, level)
			if err != nil {
				return nil, err
			}
			if n != nil {
				and.Children = append(and.Children, n)
			}
			continue
		}
		if strings.Count(key, ".")+1 > 180 {
			return nil, errs.New(errs.Location5729100, "FieldPath is too long")
		}
		if isExpressionDocument(v, false) {
			if err := p.parseSub(key, v.Document(), &and.Children, next); err != nil {
				return nil, err
			}
			continue
		}
		if v.Type == bsoncore.TypeRegex {
			pat, opts := v.Regex()
			n, err := newRegexNode(key, pat, opts)
			if err != nil {
				return nil, err
			}
			and.Children = append(and.Children, n)
			continue
		}
		n, err := newCompare(key, OpEQ, v)
		if err != nil {
			return nil, err
		}
		and.Children = append(and.Children, n)
	}
	return simplify(and), nil
}

// newCompare builds a comparison node, rejecting undefined operands.
func newCompare(path string, op Op, v bsoncore.Value) (*CompareNode, error) {
	if v.Type == bsoncore.TypeUndefined {
		return nil, errs.New(errs.BadValue, "cannot compare to undefined")
	}
	return &CompareNode{pathed: newPathed(path), Op: op, Value: v}, nil
}

// parsePathless parses a top-level $-operator. A nil node means the
// operator contributes no predicate ($comment).
func (p *parser) parsePathless(key string, v bsoncore.Value, level int) (Node, error) {
	switch key {
	case "$and", "$or", "$nor":
		kids, err := p.parseTree(v, level)
		if err != nil {
			return nil, err
		}
		switch key {
		case "$and":
			return &AndNode{Children: kids}, nil
		case "$or":
			return newOr(kids), nil
		}
		return &NorNode{Children: kids}, nil
	case "$comment":
		return nil, nil
	case "$expr":
		if level == levelSubDocument {
			return nil, errs.New(errs.BadValue, "$expr can only be applied to the top-level document")
		}
		return p.newExprNode(v)
	case "$where":
		if level == levelSubDocument {
			return nil, errs.New(errs.BadValue, "$where can only be applied to the top-level document")
		}
		return nil, errs.New(errs.NotImplemented, "$where needs server-side JavaScript, which Lode does not run")
	case "$text":
		if level == levelSubDocument {
			return nil, errs.New(errs.BadValue, "$text can only be applied to the top-level document")
		}
		return parseText(v)
	case "$jsonSchema":
		return newJSONSchemaNode(v)
	case "$sampleRate":
		return p.parseSampleRate(v, level)
	case "$alwaysTrue", "$alwaysFalse":
		n, ok := integral64(v)
		if !ok || !isNumber(v) {
			return nil, errs.New(errs.FailedToParse, "Expected a number in: %s", bsonutil.FormatElem(key, v, msgStyle))
		}
		if n != 1 {
			return nil, errs.New(errs.FailedToParse, "%s must be an integer value of 1", key)
		}
		return &BoolNode{Value: key == "$alwaysTrue"}, nil
	case "$id", "$ref", "$db":
		return newCompare(key, OpEQ, v)
	}
	hint := ". If you have a field name that starts with a '$' symbol, consider using $getField or $setField."
	if key == "$not" {
		hint = ". If you are trying to negate an entire expression, use $nor."
	}
	return nil, errs.New(errs.BadValue, "unknown top level operator: %s%s", key, hint)
}

// parseTree parses the array argument of $and/$or/$nor.
func (p *parser) parseTree(v bsoncore.Value, level int) ([]Node, error) {
	if v.Type != bsoncore.TypeArray {
		return nil, errs.New(errs.BadValue, "%s must be an array", "$and/$or/$nor")
	}
	vals, err := v.Array().Values()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid array: %v", err)
	}
	if len(vals) == 0 {
		return nil, errs.New(errs.BadValue, "$and/$or/$nor must be a nonempty array")
	}
	kids := make([]Node, 0, len(vals))
	for _, e := range vals {
		if e.Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.BadValue, "$or/$and/$nor entries need to be full objects")
		}
		n, err := p.parseDoc(e.Document(), level)
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	return kids, nil
}

// isExpressionDocument reports whether v is an operator document: an
// object whose first field starts with '$' and that is not a DBRef.
func isExpressionDocument(v bsoncore.Value, allowIncompleteDBRef bool) bool {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return false
	}
	it := newElemIter(v.Data)
	k, _, ok := it.next()
	if !ok || len(k) == 0 || k[0] != '$' {
		return false
	}
	return !isDBRefDocument(v.Data, allowIncompleteDBRef)
}

func isDBRefDocument(doc []byte, allowIncomplete bool) bool {
	var ref, id, db bool
	it := newElemIter(doc)
	for {
		k, _, ok := it.next()
		if !ok {
			break
		}
		switch string(k) {
		case "$ref":
			ref = true
		case "$id":
			id = true
		case "$db":
			db = true
		}
	}
	if allowIncomplete {
		return ref || id || db
	}
	return ref && id
}

func isNumber(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		return true
	}
	return false
}

// pathlessOperators are the top-level operators MongoDB knows; a
// $elemMatch whose argument starts with one of them is in object form.
var pathlessOperators = map[string]bool{
	"$and": true, "$or": true, "$nor": true, "$comment": true, "$expr": true, "$where": true,
	"$text": true, "$jsonSchema": true, "$sampleRate": true, "$alwaysTrue": true,
	"$alwaysFalse": true, "$id": true, "$ref": true, "$db": true,
}
