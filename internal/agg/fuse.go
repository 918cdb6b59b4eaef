package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/expr"
)

// This file folds a $project, $addFields/$set or $unset into the $group
// that follows it, so that $group reads the input documents directly
// instead of a document rebuilt per input (dependency analysis, as
// mongod's: the group needs only the fields its expressions name).
//
// The folded stage stays in the pipeline for explain but passes its
// input through; the group evaluates the stage's computed fields itself,
// once per document and in the stage's order (so an expression that
// fails still fails the pipeline), binds each to a variable slot, and
// its own expressions read "$f" as:
//   - the slot of f, when f is computed by the stage ("$f.x" reads below
//     the slot's value as it would below the field);
//   - the input's own "$f", when the stage keeps f unchanged (an included
//     or untouched top-level field);
//   - missing, when the stage drops f.
// Nested specifications ({"a.b": ...}, {a: {b: ...}}), $$ROOT and bare
// $$CURRENT need the rebuilt document and keep the two stages apart.

// preField is a computed field the group evaluates before its own
// expressions.
type preField struct {
	slot int
	e    expr.Expr
}

// groupFeeder is a stage a $group right after it can read through: a
// $project or $unset, an $addFields or $set. Each says so beside its
// type.
type groupFeeder interface {
	// fuseTree is the stage's field tree and how the group reads it
	// (fuseInclude, fuseExclude, fuseAdd).
	fuseTree() (tree *pnode, mode int)
	// fused makes the stage pass its input through: the group
	// evaluates it.
	fused()
}

// fuseGroups folds each eligible stage into a $group right after it.
func fuseGroups(stages []stage, pc *ParseContext) []stage {
	for i := 0; i+1 < len(stages); i++ {
		g, ok := stages[i+1].(*groupStage)
		if !ok || !g.takesFused() {
			continue
		}
		f, ok := stages[i].(groupFeeder)
		if !ok {
			continue
		}
		tree, mode := f.fuseTree()
		if fg := fuseGroup(g, tree, mode, pc); fg != nil {
			stages[i+1] = fg
			f.fused()
		}
	}
	return stages
}

const (
	fuseInclude = iota // inclusion $project: fields not named are dropped
	fuseExclude        // exclusion $project, $unset: fields named are dropped
	fuseAdd            // $addFields, $set: fields not named are kept
)

// fuseGroup re-parses g reading its fields through tree, or returns nil
// when that is not possible.
func fuseGroup(g *groupStage, tree *pnode, mode int, pc *ParseContext) *groupStage {
	for _, c := range tree.children {
		if c.kind == pNested {
			return nil
		}
	}
	slots := map[string]int{}
	var pre []preField
	for _, k := range tree.order {
		if c := tree.children[k]; c.kind == pExpr {
			slot := pc.Expr.Define("\x00fused." + k)
			slots[k] = slot
			pre = append(pre, preField{slot: slot, e: c.e})
		}
	}
	inline := func(path []string) (expr.Expr, bool) {
		c := tree.children[path[0]]
		switch {
		case c == nil && mode == fuseInclude:
			return expr.MissingExpr, true
		case c == nil:
			return expr.FieldPath(path), true
		case c.kind == pInclude:
			return expr.FieldPath(path), true
		case c.kind == pExclude:
			return expr.MissingExpr, true
		case c.kind == pExpr:
			return expr.SlotPath(slots[path[0]], path[1:]), true
		}
		return nil, false
	}
	pc.Expr.SetInliner(inline)
	fg, err := newGroup(g.raw, pc)
	failed := pc.Expr.InlineFailed()
	pc.Expr.SetInliner(nil)
	if err != nil || failed {
		return nil
	}
	fg.pre = pre
	if pre == nil {
		fg.pre = []preField{}
	}
	return fg
}

// evalPre binds the folded stage's computed fields of d.
func (g *groupStage) evalPre(d bsoncore.Document, vars *expr.Vars) error {
	for _, p := range g.pre {
		v, err := p.e.Eval(d, vars)
		if err != nil {
			return err
		}
		vars.Set(p.slot, v)
	}
	return nil
}
