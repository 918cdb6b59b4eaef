package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdDropDatabase, requires(dbNeeds(auth.ActDropDatabase)), "dropDatabase").inAPIV1().takingWriteConcern().inApplyOps())
}

// cmdDropDatabase drops a database and all of its collections.
func cmdDropDatabase(_ context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	if err := s.eng.DropDatabase(req.DB); err != nil {
		return nil, err
	}
	return bsoncore.NewDocumentBuilder().AppendString("dropped", req.DB).Build(), nil
}
