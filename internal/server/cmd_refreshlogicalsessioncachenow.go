package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdRefreshLogicalSessionCacheNow, anyone(), "refreshLogicalSessionCacheNow").forTests())
}

// cmdRefreshLogicalSessionCacheNow refreshes config.system.sessions at
// once (sessions_coll.go), as mongod's test command does; it is served
// only with test commands enabled.
func cmdRefreshLogicalSessionCacheNow(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	return nil, s.refreshSessionCache(ctx)
}
