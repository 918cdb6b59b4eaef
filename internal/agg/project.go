package agg

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// The registry entries of the stages in this file (stagedef.go).
func init() {
	{
		w := perEvent
		w.inUpdate = yes
		registerStage("$project", stageDef{parse: parseProject, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeProjection})
	}
	{
		w := perEvent
		w.inUpdate = yes
		registerStage("$addFields", stageDef{parse: parseAddFields("$addFields"), access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeExpr})
	}
	{
		w := perEvent
		w.inUpdate = yes
		registerStage("$set", stageDef{parse: parseAddFields("$set"), access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeExpr})
	}
	{
		w := perEvent
		w.inUpdate = yes
		registerStage("$unset", stageDef{parse: parseUnset, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeVerbatim})
	}
	{
		w := perEvent
		w.inUpdate = yes
		registerStage("$replaceRoot", stageDef{parse: parseReplaceRoot, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeExpr})
	}
	{
		w := perEvent
		w.inUpdate = yes
		registerStage("$replaceWith", stageDef{parse: parseReplaceWith, access: noAccess, sources: noSources, where: w, explain: explainNone, shape: shapeExpr})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// projectStage is $project (and $unset, an exclusion $project).
type projectStage struct {
	stageName string
	raw       bsoncore.Value
	tree      *pnode
	exclusion bool
	// passThrough is set when the $group after the stage evaluates it
	// itself (fuse.go): the stage then returns its input unchanged.
	passThrough bool
}

func parseProject(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location15969, "$project specification must be an object")
	}
	if isEmptyDoc(v) {
		return nil, errs.New(errs.Location51272, "Invalid $project :: caused by :: projection specification must have at least one field")
	}
	tree := newPnode()
	var m projMode
	if err := parseProjectTree(tree, d, pc, &m, ""); err != nil {
		return nil, err
	}
	excl := m.mode == pExclude || (m.mode == 0 && m.idExcluded)
	if !excl && !m.idSet {
		// _id is included unless excluded explicitly; it comes first.
		tree.children["_id"] = &pchild{kind: pInclude}
		tree.order = append([]string{"_id"}, tree.order...)
	}
	return []stage{&projectStage{stageName: "$project", raw: v, tree: tree, exclusion: excl}}, nil
}

func parseUnset(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	var fields []string
	switch v.Type {
	case bsoncore.TypeString:
		fields = []string{v.StringValue()}
	case bsoncore.TypeArray:
		vals, _ := v.Array().Values()
		if len(vals) == 0 {
			return nil, errs.New(errs.Location31119, "$unset specification must be a string or an array with at least one field")
		}
		for _, x := range vals {
			s, ok := x.StringValueOK()
			if !ok {
				return nil, errs.New(errs.Location31120, "$unset specification must be a string or an array containing only string values")
			}
			fields = append(fields, s)
		}
	default:
		return nil, errs.New(errs.Location31002, "$unset specification must be a string or an array")
	}
	tree := newPnode()
	for _, f := range fields {
		node, leaf, err := tree.at("$unset", f)
		if err != nil {
			return nil, err
		}
		node.set(leaf, &pchild{kind: pExclude})
	}
	return []stage{&projectStage{stageName: "$unset", raw: v, tree: tree, exclusion: true}}, nil
}

// fuseTree: a $group after a $project reads the fields it includes or
// computes (fuse.go); after an exclusion or $unset, all but those it
// drops.
func (p *projectStage) fuseTree() (*pnode, int) {
	if p.exclusion {
		return p.tree, fuseExclude
	}
	return p.tree, fuseInclude
}

// fused makes the $project pass its input through.
func (p *projectStage) fused() { p.passThrough = true }

// fuseTree: a $group after an $addFields reads its computed fields and
// the input's others (fuse.go).
func (a *addFieldsStage) fuseTree() (*pnode, int) { return a.tree, fuseAdd }

// fused makes the $addFields pass its input through.
func (a *addFieldsStage) fused() { a.passThrough = true }

// pushStep: an inclusion-only $project is the scan's projection.
func (p *projectStage) pushStep() pushStep { return pushProjection }

// pushInto makes an inclusion-only $project (not $unset, not one a
// $group evaluates) the scan's projection.
func (p *projectStage) pushInto(_ *Pipeline, spec *FindSpec) (stage, bool) {
	if p.stageName != "$project" || p.exclusion || p.passThrough || !p.tree.onlyIncludes() {
		return nil, false
	}
	spec.Projection = p.raw.Document()
	return nil, true
}

func (p *projectStage) name() string            { return p.stageName }
func (p *projectStage) spec() bsoncore.Document { return specDoc(p.stageName, p.raw) }

func (p *projectStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	if p.passThrough {
		return in, nil
	}
	if p.exclusion {
		return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
			return p.tree.exclude(d), nil
		}), nil
	}
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		return p.tree.include(d, d, rc.vars)
	}), nil
}

// addFieldsStage is $addFields and its alias $set.
type addFieldsStage struct {
	stageName string
	raw       bsoncore.Value
	tree      *pnode
	// passThrough: as projectStage's.
	passThrough bool
}

func parseAddFields(stageName string) stageParser {
	return func(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
		d, ok := v.DocumentOK()
		if !ok {
			return nil, errs.New(errs.Location40272, "%s specification stage must be an object, got %s", stageName, bsonutil.TypeName(v.Type))
		}
		tree := newPnode()
		if err := parseSetTree(tree, stageName, d, pc); err != nil {
			return nil, err
		}
		return []stage{&addFieldsStage{stageName: stageName, raw: v, tree: tree}}, nil
	}
}

func (a *addFieldsStage) name() string            { return a.stageName }
func (a *addFieldsStage) spec() bsoncore.Document { return specDoc(a.stageName, a.raw) }

func (a *addFieldsStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	if a.passThrough {
		return in, nil
	}
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		return a.tree.setFields(d, d, rc.vars)
	}), nil
}

// replaceRootStage is $replaceRoot and $replaceWith.
type replaceRootStage struct {
	stageName string
	raw       bsoncore.Value
	e         expr.Expr
}

func parseReplaceRoot(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location40229, "expected an object as specification for $replaceRoot stage, got %s", bsonutil.TypeName(v.Type))
	}
	elems, _ := d.Elements()
	var nr bsoncore.Value
	for _, el := range elems {
		if el.Key() != "newRoot" {
			return nil, errs.New(errs.Location40415, "BSON field '$replaceRoot.%s' is an unknown field.", el.Key())
		}
		nr = el.Value()
	}
	if nr.Type == 0 {
		return nil, errs.New(errs.Location40414, "BSON field '$replaceRoot.newRoot' is missing but a required field")
	}
	e, err := expr.Parse(nr, pc.Expr)
	if err != nil {
		return nil, err
	}
	return []stage{&replaceRootStage{stageName: "$replaceRoot", raw: v, e: e}}, nil
}

func parseReplaceWith(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	e, err := expr.Parse(v, pc.Expr)
	if err != nil {
		return nil, err
	}
	return []stage{&replaceRootStage{stageName: "$replaceWith", raw: v, e: e}}, nil
}

func (r *replaceRootStage) name() string            { return r.stageName }
func (r *replaceRootStage) spec() bsoncore.Document { return specDoc(r.stageName, r.raw) }

func (r *replaceRootStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	return mapIter(in, func(d bsoncore.Document) (bsoncore.Document, error) {
		v, err := r.e.Eval(d, rc.vars)
		if err != nil {
			return nil, err
		}
		nd, ok := v.DocumentOK()
		if !ok {
			shown, tn := "MISSING", "missing"
			if !expr.IsMissing(v) {
				shown, tn = v.String(), bsonutil.TypeName(v.Type)
			}
			return nil, errs.New(errs.Location40228, "'newRoot' expression must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'. Input document: %s", shown, tn, d.String())
		}
		return nd, nil
	}), nil
}
