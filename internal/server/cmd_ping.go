package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdPing, "ping") }

// cmdPing answers {ok: 1}.
func cmdPing(context.Context, *Server, *Request) (bsoncore.Document, error) {
	return nil, nil
}
