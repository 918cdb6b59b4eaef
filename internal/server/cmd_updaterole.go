package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdUpdateRole, requires(updateRoleNeeds), "updateRole").takingWriteConcern())
}

// cmdUpdateRole replaces a user-defined role's privileges and/or roles:
// what is given replaces what the role had, as mongod's $set.
func cmdUpdateRole(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	spec, err := parseRoleSpec(req)
	if err != nil {
		return nil, err
	}
	if spec.privs == nil && spec.roles == nil && !spec.restrictions {
		return nil, errs.New(errs.BadValue, "Must specify at least one field to update in updateRole")
	}
	return nil, s.users.UpdateRole(ctx, auth.RoleName{Role: spec.name, DB: req.DB}, spec.privs, spec.roles)
}
