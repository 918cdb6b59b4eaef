package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdRefreshSessions, authenticated(), "refreshSessions").inAPIV1())
}

// cmdRefreshSessions marks sessions as used now, postponing their expiry
// and putting them in the session cache (the next refresh writes them to
// config.system.sessions), as mongod's refreshSessions does.
func cmdRefreshSessions(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	ids, err := s.sessionIDs(ctx, req, false)
	if err != nil {
		return nil, err
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	owner := s.sessionOwnerOf(ctx, req)
	for _, l := range ids {
		if ss := s.sessions.lookup(l.key); ss != nil && ss.owner.uid != l.uid {
			continue
		}
		s.sessions.get(s, l.key, owner, true)
	}
	return nil, nil
}
