package expr

import "go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

// This file holds what pipeline optimisations need from parsed
// expressions: re-parsing an expression with some field paths rewritten
// (a $project folded into the stage after it), copies of variable
// bindings for parallel evaluation, and the fields of an object literal.

// Inliner rewrites the field paths on the current document ("$a.b",
// "$$CURRENT.a.b") met while parsing. It returns the expression to use
// instead and true, or false when the path cannot be rewritten; the
// ParseContext then records the failure (InlineFailed) and parsing goes
// on with the path unchanged.
type Inliner func(path []string) (Expr, bool)

// SetInliner installs in (nil removes it) and clears InlineFailed.
func (pc *ParseContext) SetInliner(in Inliner) {
	pc.inline = in
	pc.inlineFailed = false
}

// InlineFailed reports whether a path seen since SetInliner could not be
// rewritten, or $$ROOT / bare $$CURRENT was used (the whole current
// document, which an inliner cannot supply).
func (pc *ParseContext) InlineFailed() bool { return pc.inlineFailed }

// FieldPath returns the expression "$p0.p1..." on the current document.
func FieldPath(path []string) Expr {
	return &fieldPathExpr{kind: varCurrent, path: append([]string(nil), path...)}
}

// SlotPath returns the expression reading variable slot and, when path is
// not empty, the dotted path below its value, with the semantics of a
// field path on a document whose field holds that value.
func SlotPath(slot int, path []string) Expr {
	return &fieldPathExpr{kind: varUser, slot: slot, name: "inlined", path: append([]string(nil), path...)}
}

// MissingExpr evaluates to the missing value.
var MissingExpr Expr = constExpr{Missing}

// Clone returns bindings that can be used by another goroutine: $$NOW
// fixed, slots copied.
func (vs *Vars) Clone() *Vars {
	if vs == nil {
		return nil
	}
	c := &Vars{Now: vs.now(), Root: vs.Root, ctx: vs.ctx, budget: vs.budget}
	c.slots = append([]bsoncore.Value(nil), vs.slots...)
	return c
}

// ObjectFields returns the field names and expressions of an object
// literal expression ({a: <expr>, b: <expr>}), or false for any other
// expression. A field whose value is missing is left out of the object
// the literal evaluates to.
func ObjectFields(e Expr) ([]string, []Expr, bool) {
	o, ok := e.(objectExpr)
	if !ok {
		return nil, nil, false
	}
	names := make([]string, len(o))
	exprs := make([]Expr, len(o))
	for i, f := range o {
		names[i], exprs[i] = f.name, f.e
	}
	return names, exprs, true
}
