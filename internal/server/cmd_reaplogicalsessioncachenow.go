package server

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdReapLogicalSessionCacheNow, anyone(), "reapLogicalSessionCacheNow").forTests())
}

// cmdReapLogicalSessionCacheNow runs the session reaper at once (session.go
// reapOnce: sessions idle past localLogicalSessionTimeoutMinutes end,
// transactions idle past transactionLifetimeLimitSeconds abort), as
// mongod's test command runs its transaction reaper; it is served only
// with test commands enabled.
func cmdReapLogicalSessionCacheNow(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	s.reap(time.Now(), true)
	return nil, nil
}
