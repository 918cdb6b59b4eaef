package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdKillSessions, "killSessions") }

// cmdKillSessions kills the given sessions, aborting their transactions.
func cmdKillSessions(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	ids, err := sessionIDs(req)
	if err != nil {
		return nil, err
	}
	if err := ignoreArgs(req); err != nil {
		return nil, err
	}
	for _, k := range ids {
		s.sessions.remove(k)
	}
	return nil, nil
}
