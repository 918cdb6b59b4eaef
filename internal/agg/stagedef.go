package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/queryshape"
)

// stageParser parses one stage's argument; some stages expand to several.
type stageParser func(v bsoncore.Value, pc *ParseContext) ([]stage, error)

// decision is a yes/no trait of a stage that its registration must
// settle: the zero value is undecided, which TestEveryStageDecidesTraits
// refuses, so an explicit no is told apart from a forgotten trait.
type decision uint8

const (
	undecided decision = iota
	no
	yes
)

// stageDef is a stage of the registry, declared in the stage's own file
// by registerStage in its init: how it parses, what it touches besides
// its input (access.go), which the server checks under authorization,
// where it may appear (mongod's DocumentSource::constraints()), what
// explain reports for it and how $queryStats shapes it. A stage cannot be
// registered without deciding each of them (TestEveryStageDeclaresAccess,
// TestEveryStageDecidesTraits).
type stageDef struct {
	parse  stageParser
	access stageAccess
	// sources are the namespaces and sub-pipelines it reads besides its
	// input (sources.go); noSources for none.
	sources stageSources
	// initial: first in a pipeline, the stage produces the documents
	// itself, so mongod asks no find on the aggregated collection.
	initial bool

	// where is where it may appear.
	where constraints

	// explain appends the statistics the stage reports at the execution
	// verbosities, after its spec and before nReturned
	// (explainstats.go); explainNone for none.
	explain explainHook
	// shape is how $queryStats shapes the stage's argument.
	shape queryshape.StageForm
}

// explainHook appends a stage's execution statistics to its explain
// entry; st holds its figures and inBytes the size of what it read.
type explainHook func(b *bsoncore.DocumentBuilder, st *stageStats, inBytes int64)

// explainNone is the explain hook of the stages that report no figures
// beyond nReturned and executionTimeMillisEstimate.
func explainNone(*bsoncore.DocumentBuilder, *stageStats, int64) {}

// constraints say where a stage may appear, as mongod's
// DocumentSource::constraints() do.
type constraints struct {
	// first: only valid as the first stage of a pipeline (40602).
	first decision
	// last: only valid as the last stage of a pipeline (40601).
	last decision
	// inFacet, inLookup, inUnion: allowed in a $facet sub-pipeline
	// (40600), in $lookup's (51047), in $unionWith's (31441).
	inFacet, inLookup, inUnion decision
	// dbLevel: may open a database-level aggregate ({aggregate: 1});
	// other stages need a collection there.
	dbLevel decision
	// adminOnly: runs only against the admin database with
	// {aggregate: 1}.
	adminOnly decision
	// afterChangeStream: may follow $changeStream (changestream.go).
	afterChangeStream decision
	// inUpdate: allowed in a pipeline-style update (updatepipe.go).
	inUpdate decision
	// writes: writes persistent data ($out, $merge): explain runs it
	// without writing, and a view may not hold it.
	writes decision
	// inView: allowed in a view definition.
	inView decision
	// apiV1: in Stable API Version 1; apiStrict refuses it otherwise
	// (the server asks StageTraits).
	apiV1 decision
	// overView: may open a pipeline run on a view's namespace; the
	// others read the collection itself and are refused there as a
	// write on a view is (the server asks StageTraits).
	overView decision
	// ownsTextMeta: a text search's {$meta: "textScore"} in its argument
	// is not rewritten for it: it takes it as is ($match, $sort) or
	// prepares its sub-pipelines on their own (text.go).
	ownsTextMeta decision
	// dropsTextScore: its input loses the hidden text score field first:
	// it stores its input or runs sub-pipelines over it (text.go).
	dropsTextScore decision
}

// anywhere are the constraints of a stage that may appear anywhere but
// after $changeStream, in API Version 1: registrations start from it and
// change what differs.
var anywhere = constraints{first: no, last: no, inFacet: yes, inLookup: yes, inUnion: yes,
	dbLevel: no, adminOnly: no, afterChangeStream: no, inUpdate: no,
	writes: no, inView: yes, apiV1: yes, overView: yes, ownsTextMeta: no, dropsTextScore: no}

// perEvent are the constraints of a stage that looks at one document at a
// time and may also follow $changeStream.
var perEvent = func() constraints { c := anywhere; c.afterChangeStream = yes; return c }()

// collectionReport are the constraints of a stage that reports on the
// collection rather than reading it ($collStats, $indexStats,
// $planCacheStats): first in the pipeline, not in $facet, outside API
// Version 1, and not over a view.
var collectionReport = func() constraints {
	c := anywhere
	c.first, c.inFacet, c.apiV1, c.overView = yes, no, no, no
	return c
}()

// stageDefs is the registry, filled by the init functions of the stage
// files; it is only read once the package is initialized.
var stageDefs = map[string]*stageDef{}

// registerStage adds a stage to the registry.
func registerStage(name string, d stageDef) {
	if _, dup := stageDefs[name]; dup {
		panic("agg: stage " + name + " registered twice")
	}
	stageDefs[name] = &d
	if d.shape != queryshape.FormUndecided { // else the test names it
		queryshape.RegisterStage(name, d.shape)
	}
}

// checkPlacement enforces where a stage may appear: i is its position in
// the pipeline of n stages.
func checkPlacement(name string, def *stageDef, i, n int, pc *ParseContext) error {
	d := &def.where
	if d.last == yes && i != n-1 {
		return errs.New(errs.Location40601, "%s can only be the final stage in the pipeline", name)
	}
	if d.first == yes && i != 0 {
		return errs.New(errs.Location40602, "%s is only valid as the first stage in a pipeline", name)
	}
	if pc.inFacet && d.inFacet != yes {
		return errs.New(errs.Location40600, "%s is not allowed to be used within a $facet stage", name)
	}
	if pc.inLookup && d.inLookup != yes {
		return errs.New(errs.Location51047, "%s is not allowed within a $lookup's sub-pipeline", name)
	}
	if pc.inUnion && d.inUnion != yes {
		return errs.New(errs.Location31441, "%s is not allowed within a $unionWith's sub-pipeline", name)
	}
	if d.adminOnly == yes && (pc.DB != "admin" || pc.Coll != "") {
		return errs.New(errs.InvalidNamespace, "%s must be run against the 'admin' database with {aggregate: 1}", name)
	}
	if pc.Coll == "" && i == 0 && !pc.inFacet && d.dbLevel != yes {
		// A sub-pipeline with no collection must start with $documents
		// (FailedToParse); a command with none is InvalidNamespace.
		switch {
		case pc.inLookup:
			return errs.New(errs.FailedToParse, "$lookup stage without explicit collection must have a pipeline with $documents as first stage")
		case pc.inUnion:
			return errs.New(errs.FailedToParse, "$unionWith stage without explicit collection must have a pipeline with $documents as first stage")
		}
		return errs.New(errs.InvalidNamespace, "{aggregate: 1} is not valid for '%s'; a collection is required.", name)
	}
	if name == "$documents" && i == 0 && pc.Coll != "" && !pc.inLookup && !pc.inUnion && !pc.inFacet {
		return errs.New(errs.InvalidNamespace, "$documents must be run against the database with {aggregate: 1}, not a collection")
	}
	return nil
}

// StageInfo is what the server asks of a stage's registry entry.
type StageInfo struct {
	// APIV1: in Stable API Version 1 (apiStrict refuses the others).
	APIV1 bool
	// Writes: writes persistent data ($out, $merge).
	Writes bool
	// InView: allowed in a view definition.
	InView bool
	// OverView: may open a pipeline run on a view.
	OverView bool
}

// StageTraits returns the traits of the stage registered under name, and
// whether Lode knows the stage at all.
func StageTraits(name string) (StageInfo, bool) {
	d, ok := stageDefs[name]
	if !ok {
		return StageInfo{}, false
	}
	return StageInfo{APIV1: d.where.apiV1 == yes, Writes: d.where.writes == yes, InView: d.where.inView == yes,
		OverView: d.where.overView == yes}, true
}

// writes reports whether the stage named name writes persistent data.
func writes(name string) bool {
	d := stageDefs[name]
	return d != nil && d.where.writes == yes
}

// The query-shape forms, for the registrations in the stage files.
const (
	shapeExpr       = queryshape.FormExpr
	shapeFilter     = queryshape.FormFilter
	shapeVerbatim   = queryshape.FormVerbatim
	shapeNumber     = queryshape.FormNumber
	shapeProjection = queryshape.FormProjection
	shapeArgs       = queryshape.FormArgs
)
