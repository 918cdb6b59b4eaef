package agg

import (
	"context"
	"github.com/lodedb/lode/internal/collation"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/membudget"
	"github.com/lodedb/lode/internal/params"
)

// ParseContext carries what parsing a pipeline needs to know besides the
// stages themselves.
type ParseContext struct {
	// Expr holds the variables in scope (the command's `let`). Nil means a
	// fresh context.
	Expr *expr.ParseContext
	// DB and Coll name the namespace aggregated; Coll is "" for a
	// database-level aggregate ({aggregate: 1}).
	DB, Coll string
	// AllowDiskUse lets blocking stages spill to temporary files instead of
	// failing past the memory limit.
	AllowDiskUse bool
	// TempDir is where spill files go (the data directory's _tmp); ""
	// means os.TempDir().
	TempDir string
	// Params are the instance's parameters, memory budget and counters:
	// the memory limits of blocking stages
	// (internalQueryMaxBlockingSortMemoryUsageBytes for $sort,
	// $bucketAuto, $sample and $facet's input;
	// internalDocumentSourceGroupMaxMemoryBytes for $group and $bucket),
	// the bounds of $push and $addToSet, and the budget they draw on. Nil
	// means MongoDB's defaults and no budget (Parse fills it in).
	Params *params.Set
	// MemoryLimit overrides both memory limits (sort and group) when > 0.
	MemoryLimit int64
	// Hint is the aggregate command's hint, applied to the pushed-down
	// query.
	Hint bsoncore.Value
	// SessionUser is the authenticated user, for $listLocalSessions and
	// $listSessions without users; nil when nobody is. AuthOn tells
	// whether authentication is enforced (then nobody authenticated is
	// Unauthorized there, as in mongod).
	SessionUser *SessionUser
	AuthOn      bool
	// Collation is the aggregate command's collation document (nil: the
	// collection's default), passed on to the pushed-down query, and
	// Collator the collation in effect ($match and $sort compare strings
	// under it; nil: simple).
	Collation bsoncore.Document
	Collator  *collation.Collator

	// nesting is set while parsing sub-pipelines.
	inLookup, inFacet, inUnion bool
	// textScore is set when the first $match has $text: documents carry
	// their score in a hidden field (text.go).
	textScore bool
}

// params returns the instance's parameters; Parse sets them, and a
// context built elsewhere without them gets MongoDB's defaults.
func (pc *ParseContext) params() *params.Set {
	if pc.Params == nil {
		return params.New(nil)
	}
	return pc.Params
}

// memLimit is the limit of sorting stages.
func (pc *ParseContext) memLimit() int64 {
	if pc.MemoryLimit > 0 {
		return pc.MemoryLimit
	}
	return pc.params().MaxBlockingSortBytes.Load()
}

// groupMemLimit is the limit of $group and $bucket.
func (pc *ParseContext) groupMemLimit() int64 {
	if pc.MemoryLimit > 0 {
		return pc.MemoryLimit
	}
	return pc.params().GroupMaxBytes.Load()
}

// windowMemLimit is the limit of $setWindowFields.
func (pc *ParseContext) windowMemLimit() int64 {
	if pc.MemoryLimit > 0 {
		return pc.MemoryLimit
	}
	return pc.params().WindowMaxBytes.Load()
}

// budget is the memory budget blocking stages draw on (nil: none).
func (pc *ParseContext) budget() *membudget.Budget { return pc.params().Budget }

func (pc *ParseContext) tempDir() string {
	if pc.TempDir != "" {
		return pc.TempDir
	}
	return os.TempDir()
}

// sub returns a copy of pc for a sub-pipeline on db.coll.
func (pc *ParseContext) sub(db, coll string) *ParseContext {
	c := *pc
	c.DB, c.Coll = db, coll
	c.Hint = bsoncore.Value{}
	// A sub-pipeline reads under the pipeline's collation, not under
	// the default collation of the collection it reads.
	c.Collation = simpleCollation
	if c.Collator != nil {
		c.Collation = c.Collator.Spec().Document()
	}
	return &c
}

// Pipeline is a parsed and optimized aggregation pipeline.
type Pipeline struct {
	pc *ParseContext
	// push is the query sent to the catalog for the collection's
	// documents; nil when the pipeline starts with a source stage or runs
	// at database level without a collection.
	push *FindSpec
	// pushedStages are the original specs of the stages folded into push,
	// for explain.
	pushedStages []bsoncore.Document
	stages       []stage
	// countOnly, when set, answers the pipeline with the catalog's count.
	countOnly *countPlan
}

// stage is one step of a pipeline.
type stage interface {
	// name is the stage name with its "$".
	name() string
	// open returns the iterator of the stage's output given its input. in
	// is nil for source stages.
	open(rc *runCtx, in Iterator) (Iterator, error)
	// spec renders the stage for explain as {$name: ...}.
	spec() bsoncore.Document
}

// sourceStage is a stage that produces documents itself and must come
// first ($documents, $collStats, $indexStats, $currentOp).
type sourceStage interface {
	stage
	source()
}

// runCtx is the state shared by the stages of one execution.
type runCtx struct {
	ctx  context.Context
	cat  Catalog
	vars *expr.Vars
	pc   *ParseContext
	// spill, when set, counts the spills of the stage being explained
	// (explainstats.go).
	spill *spillStats
	// winMem, when set, receives a window stage's memory figures.
	winMem *windowMem
}

// Parse parses and optimizes a pipeline.
func Parse(pipeline []bsoncore.Document, pc *ParseContext) (*Pipeline, error) {
	if pc == nil {
		pc = &ParseContext{}
	}
	if pc.Expr == nil {
		pc.Expr = expr.NewParseContext()
	}
	if pc.Collator != nil {
		// Expressions and accumulators compare under the pipeline's
		// collation (mongod's ExpressionContext collator).
		pc.Expr.Collator = pc.Collator
	}
	if pc.Params == nil {
		pc.Params = params.New(nil)
	}
	pipeline, err := prepareText(pipeline, pc)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(pipeline))
	for _, d := range pipeline {
		name, _, _, err := stageSpec(d)
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	if err := checkChangeStream(names, pc); err != nil {
		return nil, err
	}
	var stages []stage
	for i, d := range pipeline {
		name, spec, p, err := stageSpec(d)
		if err != nil {
			return nil, err
		}
		if (name == "$out" || name == "$merge") && i != len(pipeline)-1 {
			return nil, errs.New(errs.Location40601, "%s can only be the final stage in the pipeline", name)
		}
		if err := checkPlacement(name, i, pc); err != nil {
			return nil, err
		}
		ss, err := p(spec, pc)
		if err != nil {
			return nil, err
		}
		stages = append(stages, ss...)
	}
	pl := &Pipeline{pc: pc, stages: fuseGroups(coalesce(stages), pc)}
	pl.pushdown()
	if err := checkTextPushed(pl); err != nil {
		return nil, err
	}
	return pl, nil
}

// stageSpec splits one pipeline stage document into its name, its
// specification and its parser, with MongoDB's errors for a malformed or
// unknown stage.
func stageSpec(d bsoncore.Document) (string, bsoncore.Value, stageParser, error) {
	elems, err := d.Elements()
	if err != nil {
		return "", bsoncore.Value{}, nil, errs.New(errs.InvalidBSON, "invalid pipeline stage: %v", err)
	}
	if len(elems) != 1 {
		return "", bsoncore.Value{}, nil, errs.New(errs.Location40323, "A pipeline stage specification object must contain exactly one field.")
	}
	name := elems[0].Key()
	def, ok := stageDefs[name]
	if !ok {
		return "", bsoncore.Value{}, nil, errs.New(errs.InvalidAggregationStage, "Unrecognized pipeline stage name: '%s'", name)
	}
	return name, elems[0].Value(), def.parse, nil
}

// checkPlacement enforces where stages may appear.
func checkPlacement(name string, i int, pc *ParseContext) error {
	switch name {
	case "$out", "$merge":
		if pc.inFacet {
			return errs.New(errs.Location40600, "%s is not allowed to be used within a $facet stage", name)
		}
		if pc.inLookup {
			return errs.New(errs.Location51047, "%s is not allowed within a $lookup's sub-pipeline", name)
		}
		if pc.inUnion {
			return errs.New(errs.Location31441, "%s is not allowed within a $unionWith's sub-pipeline", name)
		}
	case "$documents", "$collStats", "$indexStats", "$currentOp", "$queryStats", "$listLocalSessions", "$listSessions":
		if i != 0 {
			return errs.New(errs.Location40602, "%s is only valid as the first stage in a pipeline", name)
		}
		if pc.inFacet {
			return errs.New(errs.Location40600, "%s is not allowed to be used within a $facet stage", name)
		}
	case "$geoNear":
		if i != 0 {
			return errs.New(errs.Location40602, "%s is only valid as the first stage in a pipeline", name)
		}
		if pc.inFacet {
			return errs.New(errs.Location40600, "%s is not allowed to be used within a $facet stage", name)
		}
	case "$facet":
		if pc.inFacet {
			return errs.New(errs.Location40600, "$facet is not allowed to be used within a $facet stage")
		}
	}
	if name == "$currentOp" && (pc.DB != "admin" || pc.Coll != "") {
		return errs.New(errs.InvalidNamespace, "$currentOp must be run against the 'admin' database with {aggregate: 1}")
	}
	if name == "$queryStats" && (pc.DB != "admin" || pc.Coll != "") {
		return errs.New(errs.InvalidNamespace, "$queryStats must be run against the 'admin' database with {aggregate: 1}")
	}
	if name != "$documents" && pc.Coll == "" && i == 0 && !pc.inFacet {
		switch name {
		case "$currentOp", "$queryStats", "$listLocalSessions", "$changeStream":
		default:
			return errs.New(errs.InvalidNamespace, "{aggregate: 1} is not valid for '%s'; a collection is required.", name)
		}
	}
	return nil
}

// stageParser parses one stage's argument; some stages expand to several.
type stageParser func(v bsoncore.Value, pc *ParseContext) ([]stage, error)

// stageDef is a stage of the registry: how it parses and what it touches
// besides its input (access.go), which the server checks under
// authorization. A stage cannot be registered without saying what it
// reads and writes (TestEveryStageDeclaresAccess).
type stageDef struct {
	parse  stageParser
	access stageAccess
	// initial: first in a pipeline, the stage produces the documents
	// itself, so mongod asks no find on the aggregated collection.
	initial bool
}

var stageDefs map[string]stageDef

func init() {
	none := noAccess
	stageDefs = map[string]stageDef{
		"$match":       {parse: parseMatch, access: none},
		"$project":     {parse: parseProject, access: none},
		"$addFields":   {parse: parseAddFields("$addFields"), access: none},
		"$set":         {parse: parseAddFields("$set"), access: none},
		"$unset":       {parse: parseUnset, access: none},
		"$group":       {parse: parseGroup, access: none},
		"$sort":        {parse: parseSort, access: none},
		"$limit":       {parse: parseLimit, access: none},
		"$skip":        {parse: parseSkip, access: none},
		"$unwind":      {parse: parseUnwind, access: none},
		"$count":       {parse: parseCount, access: none},
		"$sortByCount": {parse: parseSortByCount, access: none},
		"$replaceRoot": {parse: parseReplaceRoot, access: none},
		"$replaceWith": {parse: parseReplaceWith, access: none},
		"$lookup":      {parse: parseLookup, access: lookupAccess},
		"$facet":       {parse: parseFacet, access: facetAccess},
		"$bucket":      {parse: parseBucket, access: none},
		"$bucketAuto":  {parse: parseBucketAuto, access: none},
		"$sample":      {parse: parseSample, access: none},
		"$geoNear":     {parse: parseGeoNear, access: none}, // geonear.go
		"$documents":   {parse: parseDocuments, access: none, initial: true},
		"$unionWith":   {parse: parseUnionWith, access: unionWithAccess},
		"$out":         {parse: parseOut, access: outAccess},
		"$merge":       {parse: parseMerge, access: mergeAccess},
		"$collStats":   {parse: parseCollStats, access: onNS("collStats"), initial: true},
		"$indexStats":  {parse: parseIndexStats, access: onNS("indexStats"), initial: true},
		// mongod asks inprog only with allUsers: true; Lode lists every
		// user's operations whatever allUsers says, so it always does.
		"$currentOp":    {parse: parseCurrentOp, access: onCluster("inprog"), initial: true},
		"$queryStats":   {parse: parseQueryStats, access: onCluster("queryStatsRead"), initial: true}, // querystats.go
		"$changeStream": {parse: parseChangeStream, access: changeStreamAccess, initial: true},
		// Outside Atlas, mongod 7.0 knows the stage and refuses it.
		"$listSearchIndexes": {parse: func(bsoncore.Value, *ParseContext) ([]stage, error) {
			return nil, errs.New(errs.Location6047401, "$listSearchIndexes stage is only allowed on MongoDB Atlas")
		}, access: onNS("listSearchIndexes"), initial: true},
		// The session stages (listsessions.go).
		"$listLocalSessions": {parse: parseListLocalSessions, access: listSessionsAccess("$listLocalSessions"), initial: true},
		"$listSessions":      {parse: parseListSessions, access: listSessionsAccess("$listSessions"), initial: true},
		// Issue 19's stages (redact.go, graphlookup.go, densify.go).
		"$redact":      {parse: parseRedact, access: none},
		"$graphLookup": {parse: parseGraphLookup, access: graphLookupAccess},
		"$densify":     {parse: parseDensify, access: none},
		// What $densify desugars to (explain shows it), as mongod accepts.
		"$_internalDensify": {parse: parseInternalDensify, access: none},
		// Window functions (setwindowfields.go, windowstage.go, fill.go).
		"$setWindowFields":          {parse: parseSetWindowFields, access: none},
		"$_internalSetWindowFields": {parse: parseInternalSetWindowFields, access: none},
		"$fill":                     {parse: parseFill, access: none},
	}
}

// Writes reports whether the pipeline ends with $out or $merge.
func (p *Pipeline) Writes() bool {
	if len(p.stages) == 0 {
		return false
	}
	n := p.stages[len(p.stages)-1].name()
	return n == "$out" || n == "$merge"
}

// Run executes the pipeline against cat. vars binds the command's let
// variables (nil for none). The returned iterator must be closed.
func (p *Pipeline) Run(ctx context.Context, cat Catalog, vars *expr.Vars) (Iterator, error) {
	if vars == nil {
		vars = expr.NewVars(time.Now())
	}
	vars.SetContext(ctx) // long expression loops stop with the operation
	vars.SetBudget(p.pc.params().Budget)
	rc := &runCtx{ctx: ctx, cat: cat, vars: vars, pc: p.pc}
	return p.run(rc)
}

func (p *Pipeline) run(rc *runCtx) (Iterator, error) {
	if p.countOnly != nil {
		return p.countOnly.run(rc, p)
	}
	var in Iterator
	stages := p.stages
	if it, next, ok, err := p.parallelGroup(rc); err != nil {
		return nil, err
	} else if ok {
		in, stages = it, stages[next:]
	} else if p.push != nil {
		it, err := rc.cat.Find(rc.ctx, p.pc.DB, p.pc.Coll, *p.push)
		if err != nil {
			return nil, err
		}
		in = it
	} else if len(p.stages) == 0 || !isSource(p.stages[0]) {
		in = &sliceIter{}
	}
	for _, s := range stages {
		if p.pc.textScore && (s.name() == "$out" || s.name() == "$merge" || s.name() == "$facet") {
			in = stripTextScore(in)
		}
		out, err := s.open(rc, in)
		if err != nil {
			if in != nil {
				in.Close()
			}
			return nil, err
		}
		in = out
	}
	if p.pc.textScore {
		in = stripTextScore(in)
	}
	return in, nil
}

// runOnInput runs the pipeline's stages over a given input instead of the
// collection (for $facet).
func (p *Pipeline) runOnInput(rc *runCtx, in Iterator) (Iterator, error) {
	for _, s := range p.stages {
		out, err := s.open(rc, in)
		if err != nil {
			in.Close()
			return nil, err
		}
		in = out
	}
	return in, nil
}

func isSource(s stage) bool { _, ok := s.(sourceStage); return ok }

// simpleCollation is {locale: "simple"}.
var simpleCollation = bsoncore.NewDocumentBuilder().AppendString("locale", "simple").Build()
