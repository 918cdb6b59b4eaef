package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	for _, n := range []string{"planCacheSetFilter", "planCacheClearFilters"} {
		register(command{names: []string{n}, handler: cmdPlanCacheFilters, authz: requires(collNeeds(auth.ActPlanCacheWrite)),
			api: apiNotV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
			observe: observed(opCommand, onColl)})
	}
	register(command{names: []string{"planCacheListFilters"}, handler: cmdPlanCacheFilters, authz: requires(collNeeds(auth.ActPlanCacheRead)),
		api: apiNotV1, inTxn: no, retryable: no, snapshotRead: no, writeConcern: no, explain: notExplained, applyOps: no,
		observe: observed(opCommand, onColl)})
}

// cmdPlanCacheFilters refuses mongod's index filter commands: Lode's plan
// cache has no index filters (docs/compatibility.md).
func cmdPlanCacheFilters(context.Context, *Server, *Request) (bsoncore.Document, error) {
	return nil, errs.New(errs.NotImplemented, "index filters are not supported")
}
