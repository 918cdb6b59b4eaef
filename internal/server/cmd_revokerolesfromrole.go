package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdRevokeRolesFromRole, requires(roleRolesNeeds(auth.ActRevokeRole)), "revokeRolesFromRole").takingWriteConcern())
}

// cmdRevokeRolesFromRole removes roles a user-defined role inherits.
func cmdRevokeRolesFromRole(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	name, rs, err := parseRoleRoles(req)
	if err != nil {
		return nil, err
	}
	return nil, s.users.RevokeRolesFromRole(ctx, name, rs)
}
