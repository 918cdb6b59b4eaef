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

	// BucketSpan, when set, returns the widest span in milliseconds of
	// the buckets of buckets collection db.coll with time field
	// timeField (engine.BucketSpan): the time range rewrite of
	// $_internalUnpackBucket widens its bucket bounds by it instead of
	// bucketMaxSpanSeconds. Nil, or ok false: by bucketMaxSpanSeconds.
	BucketSpan func(db, coll, timeField string) (ms int64, ok bool)

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
	pipeline = rewriteUnpackBucket(pipeline, pc) // unpackbucket_rewrite.go
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
		name, spec, def, err := stageSpec(d)
		if err != nil {
			return nil, err
		}
		if err := checkPlacement(name, def, i, len(pipeline), pc); err != nil {
			return nil, err
		}
		ss, err := def.parse(spec, pc)
		if err != nil {
			return nil, err
		}
		stages = append(stages, ss...)
	}
	if err := linkBoundedSorts(stages); err != nil { // unpackbucket_sort.go
		return nil, err
	}
	pl := &Pipeline{pc: pc, stages: fuseGroups(coalesce(stages), pc)}
	pl.pushdown()
	if err := checkTextPushed(pl); err != nil {
		return nil, err
	}
	return pl, nil
}

// CheckStageObjects checks that every stage of pipeline is an object, as
// mongod's parsing of a pipeline argument does (TypeMismatch).
func CheckStageObjects(pipeline bsoncore.Array) error {
	return checkStages(pipeline, false)
}

// CheckStageNames checks pipeline's stages as mongod's lite parse of a
// pipeline does: each an object (CheckStageObjects) of one field (40323)
// naming a stage the server knows (40324). The update command runs it
// over its statements' pipelines once they have run, as mongod counts
// their stages then: an unknown stage fails the whole command, after the
// statements before it were applied.
func CheckStageNames(pipeline bsoncore.Array) error {
	return checkStages(pipeline, true)
}

func checkStages(pipeline bsoncore.Array, names bool) error {
	vals, err := pipeline.Values()
	if err != nil {
		return errs.New(errs.InvalidBSON, "invalid pipeline: %v", err)
	}
	for _, v := range vals {
		d, ok := v.DocumentOK()
		if !ok {
			return errs.New(errs.TypeMismatch, "Each element of the 'pipeline' array must be an object")
		}
		if names {
			if _, _, _, err := stageSpec(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// stageSpec splits one pipeline stage document into its name, its
// specification and its registry entry, with MongoDB's errors for a
// malformed or unknown stage.
func stageSpec(d bsoncore.Document) (string, bsoncore.Value, *stageDef, error) {
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
	return name, elems[0].Value(), def, nil
}

// Writes reports whether the pipeline ends with $out or $merge.
func (p *Pipeline) Writes() bool {
	if len(p.stages) == 0 {
		return false
	}
	return writes(p.stages[len(p.stages)-1].name())
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
		if p.pc.textScore && dropsTextScore(s) {
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
