package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdLodeResetQueryStats, authenticated(), "lodeResetQueryStats").forTests())
}

// cmdLodeResetQueryStats forgets every query shape $queryStats reports,
// in memory and in local.system.lode.queryStats. MongoDB 7.0 has no such
// command; Lode serves it only with test commands enabled
// (--enable-test-commands), on admin, so that tests can start from empty
// statistics.
func cmdLodeResetQueryStats(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if req.DB != "admin" {
		return nil, errs.New(errs.Unauthorized, "lodeResetQueryStats may only be run against the admin database.")
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	s.obs.qs.reset()
	s.flushQueryStats()
	return nil, nil
}
