package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdDropAllRolesFromDatabase, requires(dbNeeds(auth.ActDropRole)), "dropAllRolesFromDatabase").takingWriteConcern())
}

// cmdDropAllRolesFromDatabase removes the user-defined roles of the
// command's database and reports how many, as {n}. As mongod, every role
// of the database, built-in ones too, is first taken away from all users
// and roles.
func cmdDropAllRolesFromDatabase(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	n, err := s.users.DropAllRoles(ctx, req.DB)
	if err != nil {
		return nil, err
	}
	return bsoncore.NewDocumentBuilder().AppendInt32("n", int32(n)).Build(), nil
}
