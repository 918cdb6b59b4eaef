package agg

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	{
		w := anywhere
		w.first = yes
		w.inFacet = no
		w.dbLevel = yes
		w.adminOnly = yes
		w.apiV1 = no
		registerStage("$queryStats", stageDef{parse: parseQueryStats, access: onCluster("queryStatsRead"), sources: noSources, initial: true, where: w, explain: explainNone, shape: shapeExpr})
	}
}

// QueryStatsLister is implemented by catalogs that can list the server's
// query statistics for $queryStats (one document per query shape).
type QueryStatsLister interface {
	QueryStats(ctx context.Context) ([]bsoncore.Document, error)
}

// queryStatsStage is $queryStats: a source stage that must be first in an
// {aggregate: 1} pipeline on the admin database.
type queryStatsStage struct {
	raw bsoncore.Value
}

// parseQueryStats parses {$queryStats: {}}; the error codes and messages
// are mongod's (DocumentSourceQueryStats). transformIdentifiers, which
// hashes field names with HMAC-SHA-256, is refused as not implemented.
func parseQueryStats(v bsoncore.Value, _ *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "$queryStats value must be an object. Found: %s", bsonutil.TypeName(v.Type))
	}
	els, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "$queryStats: %v", err)
	}
	for _, el := range els {
		switch el.Key() {
		case "transformIdentifiers":
			return nil, errs.New(errs.NotImplemented, "$queryStats.transformIdentifiers is not supported by Lode: it does not hash identifiers")
		default:
			return nil, errs.New(errs.Location40415, "BSON field '$queryStats.%s' is an unknown field.", el.Key())
		}
	}
	return []stage{&queryStatsStage{raw: v}}, nil
}

func (s *queryStatsStage) name() string            { return "$queryStats" }
func (s *queryStatsStage) spec() bsoncore.Document { return specDoc("$queryStats", s.raw) }
func (s *queryStatsStage) source()                 {}

func (s *queryStatsStage) open(rc *runCtx, _ Iterator) (Iterator, error) {
	l, ok := rc.cat.(QueryStatsLister)
	if !ok {
		return &sliceIter{}, nil
	}
	docs, err := l.QueryStats(rc.ctx)
	if err != nil {
		return nil, err
	}
	return &sliceIter{docs: docs}, nil
}
