package server

import (
	"context"
	"crypto/rand"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() { register(cmdStartSession, "startSession") }

// cmdStartSession creates a logical session with a server-chosen id.
func cmdStartSession(_ context.Context, s *Server, _ *Request) (bsoncore.Document, error) {
	var id [16]byte
	_, _ = rand.Read(id[:])
	id[6] = id[6]&0x0f | 0x40 // UUID version 4
	id[8] = id[8]&0x3f | 0x80
	s.sessions.get(s, string(id[:]), true)
	return bsoncore.NewDocumentBuilder().
		AppendDocument("id", bsoncore.NewDocumentBuilder().AppendBinary("id", 4, id[:]).Build()).
		AppendInt32("timeoutMinutes", LogicalSessionTimeoutMinutes).
		Build(), nil
}
