package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
)

func init() {
	register(admin(cmdGrantRolesToRole, requires(roleRolesNeeds(auth.ActGrantRole)), "grantRolesToRole").takingWriteConcern())
}

// parseRoleRoles reads {<cmd>: role, roles: [...]} of grantRolesToRole
// and revokeRolesFromRole.
func parseRoleRoles(req *Request) (auth.RoleName, []auth.RoleName, error) {
	name, rs, err := parseUserRoles(req)
	return auth.RoleName{Role: name, DB: req.DB}, rs, err
}

// cmdGrantRolesToRole makes a user-defined role inherit more roles.
func cmdGrantRolesToRole(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	name, rs, err := parseRoleRoles(req)
	if err != nil {
		return nil, err
	}
	return nil, s.users.GrantRolesToRole(ctx, name, rs)
}
