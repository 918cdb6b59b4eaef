package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdDropRole, requires(dbNeeds(auth.ActDropRole)), "dropRole").takingWriteConcern())
}

// cmdDropRole removes a user-defined role of the command's database, and
// takes it away from every user and role that had it.
func cmdDropRole(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	name, err := cmdRoleName(req)
	if err != nil {
		return nil, err
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	return nil, s.users.DropRole(ctx, auth.RoleName{Role: name, DB: req.DB})
}
