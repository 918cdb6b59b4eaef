package agg

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// The registry entry of $planCacheStats (stagedef.go).
func init() {
	registerStage("$planCacheStats", stageDef{parse: parsePlanCacheStats, access: onNS("planCacheRead"), sources: noSources, initial: true, where: collectionReport, explain: explainNone, shape: shapeExpr})
}

// PlanCacheReader is implemented by catalogs with a plan cache: one
// document per entry of db.coll's cache, as $planCacheStats shows them.
type PlanCacheReader interface {
	PlanCacheStats(ctx context.Context, db, coll string) ([]bsoncore.Document, error)
}

// planCacheStatsStage is $planCacheStats: the entries of the collection's
// plan cache (none from a catalog without one).
type planCacheStatsStage struct{ raw bsoncore.Value }

func parsePlanCacheStats(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "$planCacheStats value must be an object. Found: %s", v.String())
	}
	els, _ := d.Elements()
	for _, el := range els {
		if el.Key() != "allHosts" {
			return nil, errs.New(errs.FailedToParse, "unrecognized option '%s' in $planCacheStats stage", el.Key())
		}
	}
	return []stage{&planCacheStatsStage{raw: v}}, nil
}

func (s *planCacheStatsStage) name() string            { return "$planCacheStats" }
func (s *planCacheStatsStage) spec() bsoncore.Document { return specDoc("$planCacheStats", s.raw) }
func (s *planCacheStatsStage) source()                 {}

func (s *planCacheStatsStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	pr, ok := rc.cat.(PlanCacheReader)
	if !ok {
		return &sliceIter{}, nil
	}
	docs, err := pr.PlanCacheStats(rc.ctx, rc.pc.DB, rc.pc.Coll)
	if err != nil {
		return nil, err
	}
	return &sliceIter{docs: docs}, nil
}
