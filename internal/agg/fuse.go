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
	// dates, when set, are the fields (this one first) that are the
	// year, month or day in UTC of the same date as this one
	// (expr.UTCDatePart): the date is broken down once for all of them,
	// when this field is evaluated; the others have done set.
	dates []datePart
	done  bool
}

// datePart is a folded field that is one part of a date: its slot and
// the part (0 year, 1 month, 2 day).
type datePart struct {
	slot, part int
}

// shareDates makes the fields of pre that read parts of one date
// (expr.UTCDatePart) break it down once, when the first of them is
// evaluated: a later one would fail where the first did, with the same
// error, and read the same value.
func shareDates(pre []preField) {
	for i := range pre {
		path, part, ok := expr.UTCDatePart(pre[i].e)
		if !ok || pre[i].done {
			continue
		}
		ds := []datePart{{pre[i].slot, part}}
		for j := i + 1; j < len(pre); j++ {
			if p2, part2, ok := expr.UTCDatePart(pre[j].e); ok && p2 == path && !pre[j].done {
				ds = append(ds, datePart{pre[j].slot, part2})
				pre[j].done = true
			}
		}
		if len(ds) > 1 {
			pre[i].dates = ds
		}
	}
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
	shareDates(pre)
	fg.pre = pre
	if pre == nil {
		fg.pre = []preField{}
	}
	return fg
}

// evalPre binds the folded stage's computed fields of d.
func (g *groupStage) evalPre(d bsoncore.Document, vars *expr.Vars) error {
	for i := range g.pre {
		p := &g.pre[i]
		if p.done {
			continue
		}
		if p.dates != nil {
			ymd, err := expr.EvalUTCDate(p.e, d, vars)
			if err != nil {
				return err
			}
			for _, dp := range p.dates {
				vars.Set(dp.slot, ymd[dp.part])
			}
			continue
		}
		v, err := p.e.Eval(d, vars)
		if err != nil {
			return err
		}
		vars.Set(p.slot, v)
	}
	return nil
}
