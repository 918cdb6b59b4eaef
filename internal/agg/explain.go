package agg

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// Explain renders the pipeline at the queryPlanner verbosity: see
// ExplainWith.
func (p *Pipeline) Explain(ctx context.Context, cat Catalog) (bsoncore.Document, error) {
	return p.ExplainWith(ctx, cat, ExplainOptions{})
}

// ExplainWith renders the pipeline as MongoDB 7.0's aggregate explain
// does, without explainVersion, command and serverInfo (the caller's).
//
// A pipeline the query layer answers whole (only $match, $sort, $skip,
// $limit and an inclusion $project, all pushed down) renders as find's
// explain: {queryPlanner: {..., optimizedPipeline: true}, executionStats?}.
// Any other renders {stages: [{$cursor: {queryPlanner, executionStats?}},
// <stage>...]}: the $cursor entry is the pushed-down query (absent when
// the pipeline starts with a source stage), planned through the
// catalog's QueryExplainer (or, without one, Catalog.ExplainFind, and when
// that returns nil a minimal {namespace, parsedQuery, winningPlan}); a
// query a count answers ($group of a constant _id with constant $sum,
// $count) is planned as that count.
//
// At the executionStats and allPlansExecution verbosities the pipeline
// runs to completion, its results discarded and nothing written ($out and
// $merge read their input and write nothing), and each entry carries its
// figures: the $cursor entry the query's executionStats, and every entry
// nReturned and executionTimeMillisEstimate (which, as mongod's, includes
// the time of the stages before it), plus the figures of $group, $sort
// and $lookup.
func (p *Pipeline) ExplainWith(ctx context.Context, cat Catalog, o ExplainOptions) (bsoncore.Document, error) {
	v := o.Verbosity
	switch v {
	case "":
		v = VerbosityQueryPlanner
	case VerbosityQueryPlanner, VerbosityExecutionStats, VerbosityAllPlansExecution:
	default:
		return nil, errs.New(errs.FailedToParse, "verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}")
	}
	exec := execVerbosity(v)
	tr := &tracer{current: -1}
	if qe, ok := cat.(QueryExplainer); ok {
		tr.qe = qe
		if p.push != nil {
			q, err := qe.ExplainQuery(ctx, p.pc.DB, p.pc.Coll, QueryExplain{Spec: *p.push, Count: p.countOnly != nil, Verbosity: v})
			if err != nil {
				return nil, err
			}
			defer q.Close()
			tr.top = q
		}
	}
	if exec {
		it, err := p.runTraced(ctx, cat, o.Vars, tr)
		if err != nil {
			return nil, err
		}
		defer it.Close()
	} else {
		tr.stages = make([]stageStats, len(p.stages)+1)
	}
	// The $cursor section.
	var cursor bsoncore.Document
	if p.push != nil {
		if tr.top != nil {
			cursor = tr.top.Explain()
		} else {
			qp, err := cat.ExplainFind(ctx, p.pc.DB, p.pc.Coll, *p.push)
			if err != nil {
				return nil, err
			}
			if qp == nil {
				qp = p.minimalPlanner()
			}
			cursor = bsoncore.NewDocumentBuilder().AppendDocument("queryPlanner", qp).Build()
		}
	}
	if p.push != nil && p.countOnly == nil && len(p.stages) == 0 {
		return optimizedPipeline(cursor), nil
	}
	ab := bsoncore.NewArrayBuilder()
	prevBytes := int64(0)
	if p.push != nil {
		b := bsoncore.NewDocumentBuilder().AppendDocument("$cursor", cursor)
		if exec {
			b.AppendInt64("nReturned", tr.cursor.n).
				AppendInt64("executionTimeMillisEstimate", tr.cursor.nanos/1e6)
		}
		ab.AppendDocument(b.Build())
		prevBytes = tr.cursor.bytes
	}
	i := 0
	if p.countOnly != nil {
		// The count's time is the stage's: it ran before the tap saw the
		// document it produced.
		st := tr.stages[0]
		st.nanos = tr.cursor.nanos
		ab.AppendDocument(stageExplain(p.countOnly.st.spec(), &st, 0, exec))
		prevBytes = st.bytes
		i++
	}
	for _, s := range p.stages {
		st := &tr.stages[i]
		spec := s.spec()
		if g, ok := s.(*geoNearStage); ok {
			spec = g.explainSpec(ctx, cat) // geonear.go
		}
		ab.AppendDocument(stageExplain(spec, st, prevBytes, exec))
		prevBytes = st.bytes
		i++
	}
	return bsoncore.NewDocumentBuilder().AppendArray("stages", ab.Build()).Build(), nil
}

// optimizedPipeline turns the $cursor section of a pipeline the query
// layer answers whole into find's explain, marking the queryPlanner with
// optimizedPipeline: true (before maxIndexedOrSolutionsReached, where
// mongod prints it).
func optimizedPipeline(cursor bsoncore.Document) bsoncore.Document {
	elems, _ := cursor.Elements()
	b := bsoncore.NewDocumentBuilder()
	for _, e := range elems {
		if e.Key() != "queryPlanner" || e.Value().Type != bsoncore.TypeEmbeddedDocument {
			b.AppendValue(e.Key(), e.Value())
			continue
		}
		qb := bsoncore.NewDocumentBuilder()
		qels, _ := e.Value().Document().Elements()
		done := false
		for _, q := range qels {
			if !done && (q.Key() == "maxIndexedOrSolutionsReached" || q.Key() == "winningPlan") {
				qb.AppendBoolean("optimizedPipeline", true)
				done = true
			}
			qb.AppendValue(q.Key(), q.Value())
		}
		if !done {
			qb.AppendBoolean("optimizedPipeline", true)
		}
		b.AppendDocument("queryPlanner", qb.Build())
	}
	return b.Build()
}

func (p *Pipeline) minimalPlanner() bsoncore.Document {
	spec := p.push
	filter := spec.Filter
	if filter == nil {
		filter = emptyDoc
	}
	var plan bsoncore.Document
	plan = bsoncore.NewDocumentBuilder().AppendString("stage", "COLLSCAN").AppendDocument("filter", filter).AppendString("direction", "forward").Build()
	if len(spec.Sort) > 0 {
		b := bsoncore.NewDocumentBuilder().AppendString("stage", "SORT").AppendDocument("sortPattern", spec.Sort)
		if spec.Limit > 0 {
			b.AppendInt64("limitAmount", spec.Limit)
		}
		plan = b.AppendDocument("inputStage", plan).Build()
	} else if spec.Limit > 0 {
		plan = bsoncore.NewDocumentBuilder().AppendString("stage", "LIMIT").AppendInt64("limitAmount", spec.Limit).AppendDocument("inputStage", plan).Build()
	}
	if spec.Skip > 0 {
		plan = bsoncore.NewDocumentBuilder().AppendString("stage", "SKIP").AppendInt64("skipAmount", spec.Skip).AppendDocument("inputStage", plan).Build()
	}
	if len(spec.Projection) > 0 {
		plan = bsoncore.NewDocumentBuilder().AppendString("stage", "PROJECTION_SIMPLE").AppendDocument("transformBy", spec.Projection).AppendDocument("inputStage", plan).Build()
	}
	return bsoncore.NewDocumentBuilder().
		AppendString("namespace", p.pc.DB+"."+p.pc.Coll).
		AppendDocument("parsedQuery", filter).
		AppendDocument("winningPlan", plan).
		AppendArray("rejectedPlans", bsoncore.NewArrayBuilder().Build()).
		Build()
}
