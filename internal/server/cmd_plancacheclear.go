package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
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
	var query, sortDoc, proj bsoncore.Document
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "query", "sort", "projection", "collation":
			d, ok := v.DocumentOK()
			if !ok {
				return true, wrongType(req.Name, k, v, "object")
			}
			switch k {
			case "collation":
				if len(d) > 5 {
					return true, errs.New(errs.NotImplemented, "%s.collation is not supported by Lode: its plan cache entries and filters are selected by query, sort and projection only", req.Name)
				}
			case "query":
				query = d
			case "sort":
				sortDoc = d
			case "projection":
				proj = d
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if query == nil && (sortDoc != nil || proj != nil) {
		return nil, errs.New(errs.BadValue, "sort or projection provided without query")
	}
	if err := s.refuseView(ctx, req.DB, coll); err != nil {
		return nil, err
	}
	if err := s.eng.PlanCacheClear(req.DB, coll, query, sortDoc, proj); err != nil {
		return nil, err
	}
	return bsoncore.NewDocumentBuilder().Build(), nil
}
