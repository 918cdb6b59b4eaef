package query

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// TextNode is a $text predicate. It matches every document by itself:
// only a text plan (the planner's TEXT_MATCH over TEXT_OR) evaluates it,
// selecting documents through the text index and applying phrases and
// negations, so a query with $text always runs such a plan.
type TextNode struct {
	Search string
	// Language is $language, empty when absent (the index's default).
	Language           string
	CaseSensitive      bool
	DiacriticSensitive bool
}

func (n *TextNode) match([]byte, *int) bool              { return true }
func (n *TextNode) matchValue(bsoncore.Value, *int) bool { return true }
func (n *TextNode) kind() matchType                      { return mtText }

func (n *TextNode) serialize(b *bsoncore.DocumentBuilder, _ bool) {
	t := bsoncore.NewDocumentBuilder().AppendString("$search", n.Search)
	if n.Language != "" {
		t.AppendString("$language", n.Language)
	}
	t.AppendBoolean("$caseSensitive", n.CaseSensitive).AppendBoolean("$diacriticSensitive", n.DiacriticSensitive)
	b.AppendDocument("$text", t.Build())
}

// parseText parses the operand of $text as mongod 7.0 does.
func parseText(v bsoncore.Value) (Node, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(errs.BadValue, "$text expects an object")
	}
	n := &TextNode{}
	elems, _ := v.Document().Elements()
	expected := 1
	search := false
	for _, e := range elems {
		ev := e.Value()
		switch e.Key() {
		case "$search":
			s, ok := ev.StringValueOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "$search requires a string value")
			}
			n.Search, search = s, true
		case "$language":
			s, ok := ev.StringValueOK()
			if !ok {
				return nil, errs.New(errs.TypeMismatch, "$language requires a string value")
			}
			n.Language = s
			expected++
		case "$caseSensitive":
			if ev.Type != bsoncore.TypeBoolean {
				return nil, errs.New(errs.TypeMismatch, "$caseSensitive requires a boolean value")
			}
			n.CaseSensitive = ev.Boolean()
			expected++
		case "$diacriticSensitive":
			if ev.Type != bsoncore.TypeBoolean {
				return nil, errs.New(errs.TypeMismatch, "$diacriticSensitive requires a boolean value")
			}
			n.DiacriticSensitive = ev.Boolean()
			expected++
		}
	}
	if !search {
		return nil, errs.New(errs.TypeMismatch, "$search requires a string value")
	}
	if len(elems) != expected {
		return nil, errs.New(errs.BadValue, "extra fields in $text")
	}
	return n, nil
}

// TextOf returns the $text predicate of a filter, checking mongod's
// placement rules: at most one (BadValue "Too many text expressions"),
// not under $nor. A $text under $or is refused: Lode plans $text only
// at the top level or in a top-level $and.
func TextOf(f *Filter) (*TextNode, error) {
	var found []*TextNode
	underNor, underOr := false, false
	var walk func(n Node, nor, or bool)
	walk = func(n Node, nor, or bool) {
		switch t := n.(type) {
		case *TextNode:
			found = append(found, t)
			underNor = underNor || nor
			underOr = underOr || or
		case *AndNode:
			for _, c := range t.Children {
				walk(c, nor, or)
			}
		case *OrNode:
			for _, c := range t.Children {
				walk(c, nor, true)
			}
		case *NorNode:
			for _, c := range t.Children {
				walk(c, true, or)
			}
		}
	}
	if f == nil {
		return nil, nil
	}
	walk(f.root, false, false)
	switch {
	case len(found) == 0:
		return nil, nil
	case len(found) > 1:
		return nil, errs.New(errs.BadValue, "Too many text expressions")
	case underNor:
		return nil, errs.New(errs.BadValue, "text expression not allowed in nor")
	case underOr:
		return nil, errs.New(errs.NotImplemented, "$text inside $or is not supported by Lode: put $text at the top level of the filter or in a top-level $and")
	}
	return found[0], nil
}

// HasText reports whether the filter document has a $text at its top
// level or inside a top-level $and, $or or $nor (mongod's
// DocumentSourceMatch::isTextQuery looks at the top level only).
func HasText(filter bsoncore.Document) bool {
	_, err := filter.LookupErr("$text")
	return err == nil
}

// RefuseText fails with mongod's BadValue "$text is not allowed in this
// context" when the filter has a $text: filters matched document by
// document (validators, partial indexes, arrayFilters, change streams,
// tailable cursors) cannot evaluate it.
func RefuseText(f *Filter) error {
	if f == nil {
		return nil
	}
	found := false
	var walk func(n Node)
	walk = func(n Node) {
		switch t := n.(type) {
		case *TextNode:
			found = true
		case *AndNode:
			for _, c := range t.Children {
				walk(c)
			}
		case *OrNode:
			for _, c := range t.Children {
				walk(c)
			}
		case *NorNode:
			for _, c := range t.Children {
				walk(c)
			}
		}
	}
	walk(f.root)
	if found {
		return errs.New(errs.BadValue, "$text is not allowed in this context")
	}
	return nil
}

// NewFilter wraps a match tree node as a Filter (a branch planned alone).
func NewFilter(n Node) *Filter { return &Filter{root: n, fail: failureOf(n)} }

// failureOf returns the evaluation-error holder of the $expr nodes under
// n (in its $and, $or, $nor and $not), or nil when there are none.
func failureOf(n Node) *evalFailure {
	switch n := n.(type) {
	case *ExprNode:
		return n.fail
	case *AndNode:
		return firstFailure(n.Children)
	case *OrNode:
		return firstFailure(n.Children)
	case *NorNode:
		return firstFailure(n.Children)
	case *NotNode:
		return failureOf(n.Child)
	}
	return nil
}

func firstFailure(kids []Node) *evalFailure {
	for _, k := range kids {
		if f := failureOf(k); f != nil {
			return f
		}
	}
	return nil
}
