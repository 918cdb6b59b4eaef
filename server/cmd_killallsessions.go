package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdKillAllSessions, "killAllSessions") }

// cmdKillAllSessions kills every session. Without session state to hold,
// it succeeds at once, as MongoDB does when there is nothing to kill.
func cmdKillAllSessions(context.Context, *Server, *Request) (bsoncore.Document, error) {
	return nil, nil
}
