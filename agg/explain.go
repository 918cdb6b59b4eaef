package agg

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Explain renders the pipeline as MongoDB's aggregate explain does:
// {stages: [{$cursor: {queryPlanner: ...}}, <stage specs>...]}. The
// queryPlanner of the pushed-down query comes from Catalog.ExplainFind
// (the hook for the real planner); when that returns nil, a minimal
// {namespace, parsedQuery, winningPlan: {stage: "COLLSCAN"}} is rendered.
func (p *Pipeline) Explain(ctx context.Context, cat Catalog) (bsoncore.Document, error) {
	ab := bsoncore.NewArrayBuilder()
	if p.push != nil {
		qp, err := cat.ExplainFind(ctx, p.pc.DB, p.pc.Coll, *p.push)
		if err != nil {
			return nil, err
		}
		if qp == nil {
			qp = p.minimalPlanner()
		}
		cur := bsoncore.NewDocumentBuilder().AppendDocument("queryPlanner", qp).Build()
		ab.AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument("$cursor", cur).Build())
	}
	if p.countOnly != nil {
		ab.AppendDocument(p.countOnly.st.spec())
	}
	for _, s := range p.stages {
		ab.AppendDocument(s.spec())
	}
	return bsoncore.NewDocumentBuilder().AppendArray("stages", ab.Build()).Build(), nil
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
