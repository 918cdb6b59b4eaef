package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(command{names: []string{"planCacheClear"}, handler: cmdPlanCacheClear, authz: requires(collNeeds(auth.ActPlanCacheWrite)),
		api: apiNotV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand, onColl)})
}

// cmdPlanCacheClear empties a collection's plan cache, or, with query
// (and optionally sort and projection), the entries of that query shape
// (internal/engine/plancache.go).
func cmdPlanCacheClear(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	coll, err := collName(req)
	if err != nil {
		return nil, err
	}
	return s.clearByShape(ctx, req, coll, s.eng.PlanCacheClear)
}

// clearByShape runs planCacheClear or planCacheClearFilters: clear, on
// the collection, the entries of the shape its arguments select (all
// without query).
func (s *Server) clearByShape(ctx context.Context, req *Request, coll string, clear func(db, coll string, query, sort, proj bsoncore.Document) error) (bsoncore.Document, error) {
	a, err := parseShapeArgs(req, false)
	if err != nil {
		return nil, err
	}
	if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err
	}
	if err := clear(req.DB, coll, a.query, a.sort, a.proj); err != nil {
		return nil, err
	}
	return bsoncore.NewDocumentBuilder().Build(), nil
}
