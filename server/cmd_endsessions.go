package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdEndSessions, "endSessions") }

// cmdEndSessions ends logical sessions. Lode keeps no per-session state
// outside transactions yet, so there is nothing to release.
func cmdEndSessions(context.Context, *Server, *Request) (bsoncore.Document, error) {
	return nil, nil
}
