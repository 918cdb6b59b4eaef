package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdRefreshSessions, "refreshSessions") }

// cmdRefreshSessions marks sessions as used now, postponing their expiry.
func cmdRefreshSessions(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	ids, err := sessionIDs(req)
	if err != nil {
		return nil, err
	}
	if err := ignoreArgs(req); err != nil {
		return nil, err
	}
	for _, k := range ids {
		s.sessions.get(s, k, true)
	}
	return nil, nil
}
