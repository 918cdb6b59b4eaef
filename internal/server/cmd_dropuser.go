package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdDropUser, requires(dbNeeds(auth.ActDropUser)), "dropUser").takingWriteConcern())
}

// cmdDropUser removes a user of the command's database.
func cmdDropUser(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	name, ok := req.Cmd.Lookup(req.Name).StringValueOK()
	if !ok {
		return nil, errs.New(errs.TypeMismatch, "BSON field 'dropUser.dropUser' is the wrong type, expected type 'string'")
	}
	if err := onlyGenericArgs(req); err != nil {
		return nil, err
	}
	n, err := s.users.DropUsers(ctx, bsoncore.NewDocumentBuilder().AppendString("_id", req.DB+"."+name).Build())
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errs.New(errs.UserNotFound, "User '%s@%s' not found", name, req.DB)
	}
	return nil, nil
}
