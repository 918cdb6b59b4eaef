package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdPing, anyone(), "ping").inAPIV1())
}

// cmdPing answers {ok: 1}. Its IDL (generic.idl) is strict and has no
// fields: anything but the generic arguments is unknown.
func cmdPing(_ context.Context, _ *Server, req *Request) (bsoncore.Document, error) {
	return nil, onlyGenericArgs(req)
}
