package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdEndSessions, anyone(), "endSessions").inAPIV1().servedOnFailure().endingSessions())
}

// cmdEndSessions ends logical sessions of the caller: their open
// transactions abort, their cursors are killed, their retryable-write
// history is dropped, and the next refresh deletes their records from
// config.system.sessions (sessions_coll.go). Unknown ids, and sessions
// of other users, are ignored, as in mongod.
func cmdEndSessions(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	ids, err := s.sessionIDs(ctx, req, false)
	if err != nil {
		return nil, err
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	for _, l := range ids {
		if ss := s.sessions.lookup(l.key); ss != nil && ss.owner.uid != l.uid {
			continue
		}
		s.removeSession(l.key, &l.uid)
	}
	return nil, nil
}
