package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/query"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	w := perEvent
	w.ownsTextMeta = yes
	registerStage("$match", stageDef{parse: parseMatch, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeFilter})
}

// matchStage is $match: a find filter, plus the $expr clauses that
// reference let variables and are therefore evaluated here rather than by
// package query. Such a clause may sit at the top level or inside $and,
// $or and $nor, at any depth.
type matchStage struct {
	raw bsoncore.Document
	// filterDoc is the part given to query.Parse (and pushable).
	filterDoc bsoncore.Document
	filter    *query.Filter
	// exprs and logic are ANDed with filter: top-level $expr clauses and
	// the logical operators that contain one.
	exprs []expr.Expr
	logic []*logicNode
	// pushedText marks the $match pushdown leaves behind when the first
	// $match, with $text, went down as the query: the $text ran there.
	pushedText bool
}

// logicNode is a $and, $or or $nor whose branches hold $expr clauses that
// use variables. Each branch is a conjunction like the top level.
type logicNode struct {
	op       string
	branches []*conjunction
}

// conjunction is one filter document: plain clauses matched by package
// query, $expr clauses and nested logical nodes, all ANDed.
type conjunction struct {
	filter *query.Filter
	exprs  []expr.Expr
	logic  []*logicNode
}

func parseMatch(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location15959, "the match filter must be an expression in an object")
	}
	if hasWhere(d) {
		return nil, errs.New(errs.BadValue, "$where is not allowed inside of a $match aggregation expression")
	}
	m := &matchStage{raw: d}
	filterDoc := d
	if pc.Expr.NumSlots() > 0 {
		// Variables are in scope: evaluate $expr clauses ourselves.
		plain, exprs, logic, err := splitFilter(d, pc)
		if err != nil {
			return nil, err
		}
		if len(exprs) > 0 || len(logic) > 0 {
			filterDoc, m.exprs, m.logic = plain, exprs, logic
		}
	}
	f, err := query.ParseCollated(filterDoc, nil, nil, pc.Collator)
	if err != nil {
		return nil, err
	}
	if f.HasNear() {
		return nil, errGeoNearInMatch() // geonear.go
	}
	m.filterDoc, m.filter = filterDoc, f
	return []stage{m}, nil
}

// splitFilter separates a filter document into the clauses package query
// handles (plain), the top-level $expr clauses and the logical operators
// that contain $expr.
func splitFilter(d bsoncore.Document, pc *ParseContext) (bsoncore.Document, []expr.Expr, []*logicNode, error) {
	elems, err := d.Elements()
	if err != nil {
		return nil, nil, nil, errs.New(errs.InvalidBSON, "invalid $match: %v", err)
	}
	b := bsoncore.NewDocumentBuilder()
	var exprs []expr.Expr
	var logic []*logicNode
	for _, el := range elems {
		k, v := el.Key(), el.Value()
		switch {
		case k == "$expr":
			e, err := expr.Parse(v, pc.Expr)
			if err != nil {
				return nil, nil, nil, err
			}
			exprs = append(exprs, e)
		case (k == "$and" || k == "$or" || k == "$nor") && hasExpr(v):
			n, err := parseLogic(k, v, pc)
			if err != nil {
				return nil, nil, nil, err
			}
			logic = append(logic, n)
		default:
			b.AppendValue(k, v)
		}
	}
	return b.Build(), exprs, logic, nil
}

// hasExpr reports whether the argument of a logical operator contains a
// $expr clause at any depth.
func hasExpr(v bsoncore.Value) bool {
	arr, ok := v.ArrayOK()
	if !ok {
		return false
	}
	vals, _ := arr.Values()
	for _, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			continue
		}
		els, _ := d.Elements()
		for _, el := range els {
			switch el.Key() {
			case "$expr":
				return true
			case "$and", "$or", "$nor":
				if hasExpr(el.Value()) {
					return true
				}
			}
		}
	}
	return false
}

// parseLogic parses {op: [filter, ...]} with MongoDB's checks.
func parseLogic(op string, v bsoncore.Value, pc *ParseContext) (*logicNode, error) {
	vals, _ := v.Array().Values()
	if len(vals) == 0 {
		return nil, errs.New(errs.BadValue, "%s must be a nonempty array", op)
	}
	n := &logicNode{op: op}
	for _, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, errs.New(errs.BadValue, "%s/$and/$or/$nor entries need to be full objects", op)
		}
		plain, exprs, logic, err := splitFilter(d, pc)
		if err != nil {
			return nil, err
		}
		f, err := query.ParseCollated(plain, nil, nil, pc.Collator)
		if err != nil {
			return nil, err
		}
		n.branches = append(n.branches, &conjunction{filter: f, exprs: exprs, logic: logic})
	}
	return n, nil
}

func (m *matchStage) name() string { return "$match" }

func (m *matchStage) spec() bsoncore.Document { return specDoc("$match", docValue(m.raw)) }

// pushable reports whether the whole filter can run in the catalog.
func (m *matchStage) pushable() bool { return len(m.exprs) == 0 && len(m.logic) == 0 }

// pushStep: a $match is the scan's filter.
func (m *matchStage) pushStep() pushStep { return pushFilter }

// pushInto makes the filter the scan's; the $expr clauses that use
// variables stay behind as a residual $match.
func (m *matchStage) pushInto(p *Pipeline, spec *FindSpec) (stage, bool) {
	spec.Filter = m.filterDoc
	spec.TextScore = p.pc.textScore
	if m.pushable() {
		return nil, true
	}
	p.pushedStages = append(p.pushedStages, specDoc("$match", docValue(m.filterDoc)))
	all, _ := query.Parse(emptyDoc)
	return &matchStage{raw: m.raw, filterDoc: emptyDoc, filter: all, exprs: m.exprs, logic: m.logic, pushedText: p.pc.textScore}, true
}

func (m *matchStage) matches(d bsoncore.Document, rc *runCtx) (bool, error) {
	c := conjunction{filter: m.filter, exprs: m.exprs, logic: m.logic}
	return c.matches(d, rc.vars)
}

func (c *conjunction) matches(d bsoncore.Document, vars *expr.Vars) (bool, error) {
	if ok, _, err := c.filter.MatchChecked(d); err != nil || !ok {
		return false, err
	}
	for _, e := range c.exprs {
		v, err := e.Eval(d, vars)
		if err != nil {
			return false, err
		}
		if !expr.Truthy(v) {
			return false, nil
		}
	}
	for _, n := range c.logic {
		ok, err := n.matches(d, vars)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (n *logicNode) matches(d bsoncore.Document, vars *expr.Vars) (bool, error) {
	for _, b := range n.branches {
		ok, err := b.matches(d, vars)
		if err != nil {
			return false, err
		}
		switch {
		case n.op == "$and" && !ok:
			return false, nil
		case n.op == "$or" && ok:
			return true, nil
		case n.op == "$nor" && ok:
			return false, nil
		}
	}
	return n.op != "$or", nil
}

func (m *matchStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		ok, err := m.matches(d, rc)
		if err != nil || !ok {
			return nil, err
		}
		return d, nil
	}), nil
}

// hasWhere reports whether a filter uses $where at its top level or
// under $and, $or or $nor; mongod does not run it in a $match.
func hasWhere(d bsoncore.Document) bool {
	elems, _ := d.Elements()
	for _, el := range elems {
		switch el.Key() {
		case "$where":
			return true
		case "$and", "$or", "$nor":
			if arr, ok := el.Value().ArrayOK(); ok {
				vals, _ := arr.Values()
				for _, v := range vals {
					if sub, ok := v.DocumentOK(); ok && hasWhere(sub) {
						return true
					}
				}
			}
		}
	}
	return false
}
