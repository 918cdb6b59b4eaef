package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdDropAllUsersFromDatabase, requires(dbNeeds(auth.ActDropUser)), "dropAllUsersFromDatabase").takingWriteConcern())
}

// cmdDropAllUsersFromDatabase removes every user of the command's
// database and reports how many, as {n}.
func cmdDropAllUsersFromDatabase(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	n, err := s.users.DropUsers(ctx, bsoncore.NewDocumentBuilder().AppendString("db", req.DB).Build())
	if err != nil {
		return nil, err
	}
	return bsoncore.NewDocumentBuilder().AppendInt32("n", int32(n)).Build(), nil
}
