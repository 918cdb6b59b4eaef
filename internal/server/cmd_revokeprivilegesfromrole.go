package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdRevokePrivilegesFromRole, requires(rolePrivilegesNeeds(auth.ActRevokeRole)), "revokePrivilegesFromRole").takingWriteConcern())
}

// cmdRevokePrivilegesFromRole removes actions from a user-defined role's
// privileges on the same resources.
func cmdRevokePrivilegesFromRole(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	name, privs, err := parseRolePrivileges(req)
	if err != nil {
		return nil, err
	}
	return nil, s.users.RevokePrivilegesFromRole(ctx, name, privs)
}
