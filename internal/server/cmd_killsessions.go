package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdKillSessions, authenticated(), "killSessions").endingSessions())
}

// cmdKillSessions kills the given sessions (mongod's killSessions):
// their open transactions abort and their cursors are killed. An lsid
// without uid names a session of the caller; a uid of another user needs
// killAnySession. An empty array kills every session of the caller
// (without authentication, every session).
func cmdKillSessions(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	ids, err := s.sessionIDs(ctx, req, true)
	if err != nil {
		return nil, err
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		s.killSessions(ctx, uidMatcher(s.sessionOwnerOf(ctx, req).uid))
		return nil, nil
	}
	s.killSessions(ctx, lsidMatcher(ids))
	return nil, nil
}
