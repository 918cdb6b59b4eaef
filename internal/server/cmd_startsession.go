package server

import (
	"context"
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(admin(cmdStartSession, authenticated(), "startSession"))
}

// cmdStartSession creates a logical session of the caller with a
// server-chosen id: {id: {id: UUID}, timeoutMinutes}.
func cmdStartSession(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40 // UUID version 4
	id[8] = id[8]&0x3f | 0x80
	s.sessions.get(s, string(id[:]), s.sessionOwnerOf(ctx, req), true)
	return bsoncore.NewDocumentBuilder().
		AppendDocument("id", bsoncore.NewDocumentBuilder().AppendBinary("id", 4, id[:]).Build()).
		AppendInt32("timeoutMinutes", s.sessionTimeoutMinutes()).
		Build(), nil
}
