package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdKillAllSessions, requires(clusterNeeds(auth.ActKillAnySession)), "killAllSessions").endingSessions())
}

// cmdKillAllSessions kills the sessions of the users listed,
// {killAllSessions: [{user, db}, ...]}, or every session for an empty
// list: their open transactions abort and their cursors are killed.
// Without authentication sessions have no user, so a non-empty list
// matches only {user: "", db: ""}, as in mongod.
func cmdKillAllSessions(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	uids, err := sessionUsers(req)
	if err != nil {
		return nil, err
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	if len(uids) == 0 {
		s.killSessions(ctx, nil)
		return nil, nil
	}
	s.killSessions(ctx, uidMatcher(uids...))
	return nil, nil
}
