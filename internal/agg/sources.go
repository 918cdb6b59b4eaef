package agg

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Source is a namespace or a pipeline a stage reads besides its input:
// $lookup's from and pipeline, $unionWith's coll and pipeline,
// $graphLookup's from, each of $facet's pipelines. Each stage declares
// its own (stageDef.sources, beside its parser), and WalkPipeline is the
// one walk of sub-pipelines that authorization (access.go), the Stable
// API's strictness, the view graph and the text score checks share.
type Source struct {
	// From is where Pipeline runs; with Foreign, a namespace the stage
	// reads (From.Coll "" when the stage names none: a from-less
	// $lookup, whose sub-pipeline opens with $documents).
	From Namespace
	// Foreign: the stage reads From; otherwise Pipeline runs over the
	// stage's own input ($facet's), and From is where the stage runs.
	Foreign bool
	// Named: From was given as a collection of the stage's database (a
	// string), not as a {db, coll} document naming another database's
	// internal namespace.
	Named bool
	// Pipeline is the sub-pipeline, nil when the stage runs none
	// ($graphLookup).
	Pipeline []bsoncore.Document
}

// stageSources declares what a stage reads besides its input, when run in
// ns. A malformed specification gives what can be read of it and the
// error the stage's lite parse raises (authorization returns it; the
// other walks look at what was read).
type stageSources func(spec bsoncore.Value, ns Namespace) ([]Source, error)

// noSources is the declaration of a stage that reads nothing but its
// input.
func noSources(bsoncore.Value, Namespace) ([]Source, error) { return nil, nil }

// sourcesAccess is the access of a stage that reads its sources: find on
// each foreign namespace (unless its sub-pipeline opens with an initial
// source) and what each sub-pipeline needs, at any depth.
func sourcesAccess(sources stageSources) stageAccess {
	return func(spec bsoncore.Value, ns Namespace) ([]Access, error) {
		srcs, err := sources(spec, ns)
		if err != nil {
			return nil, err
		}
		var out []Access
		for _, s := range srcs {
			var acc []Access
			if s.Foreign {
				acc, err = PipelineAccess(s.From, s.Pipeline)
			} else {
				acc, err = stagesAccess(s.From, s.Pipeline)
			}
			if err != nil {
				return nil, err
			}
			out = append(out, acc...)
		}
		return out, nil
	}
}

// StageVisit is one stage WalkPipeline visits.
type StageVisit struct {
	// Name is the stage's name ("" for a malformed stage document) and
	// Spec its argument.
	Name string
	Spec bsoncore.Value
	// NS is where the stage runs.
	NS Namespace
	// Depth is 0 for the stages of the walked pipeline, 1 for those of
	// their sub-pipelines, and so on.
	Depth int
	// Sources are what the stage reads besides its input, as declared in
	// the registry (nil for a stage Lode does not know).
	Sources []Source
}

// WalkPipeline calls fn for each stage of pipeline, run in ns, and,
// before the next one, for each stage of its sub-pipelines at any depth,
// as their stages declare them. A stage is named by its document's first
// field (an empty document is visited with no name); fn's error stops the
// walk.
func WalkPipeline(ns Namespace, pipeline []bsoncore.Document, fn func(StageVisit) error) error {
	return walkPipeline(ns, pipeline, 0, fn)
}

func walkPipeline(ns Namespace, pipeline []bsoncore.Document, depth int, fn func(StageVisit) error) error {
	for _, d := range pipeline {
		v := StageVisit{NS: ns, Depth: depth}
		if el, err := d.IndexErr(0); err == nil {
			v.Name, v.Spec = el.Key(), el.Value()
			if def, ok := stageDefs[v.Name]; ok {
				v.Sources, _ = def.sources(v.Spec, ns)
			}
		}
		if err := fn(v); err != nil {
			return err
		}
		for _, s := range v.Sources {
			if err := walkPipeline(s.From, s.Pipeline, depth+1, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
