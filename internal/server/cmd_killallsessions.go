package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdKillAllSessions, "killAllSessions") }

// cmdKillAllSessions kills every session (Lode has no users to filter by),
// aborting their open transactions.
func cmdKillAllSessions(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := ignoreArgs(req); err != nil {
		return nil, err
	}
	for _, k := range s.sessions.all() {
		s.sessions.remove(k)
	}
	return nil, nil
}
