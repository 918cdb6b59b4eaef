package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdGrantPrivilegesToRole, requires(rolePrivilegesNeeds(auth.ActGrantRole)), "grantPrivilegesToRole").takingWriteConcern())
}

// parseRolePrivileges reads {<cmd>: role, privileges: [...]}, as
// grantPrivilegesToRole and revokePrivilegesFromRole take it; the array
// must not be empty.
func parseRolePrivileges(req *Request) (auth.RoleName, []auth.Privilege, error) {
	name, err := cmdRoleName(req)
	if err != nil {
		return auth.RoleName{}, nil, err
	}
	var privs []auth.Privilege
	seen := false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if k != "privileges" {
			return false, nil
		}
		seen = true
		var err error
		privs, err = argPrivileges(req, k, v)
		return true, err
	})
	switch {
	case err != nil:
	case !seen:
		err = errs.New(errs.Location40414, "BSON field '%s.privileges' is missing but a required field", req.Name)
	case len(privs) == 0:
		err = errs.New(errs.BadValue, "%s command requires a non-empty \"privileges\" array", req.Name)
	}
	return auth.RoleName{Role: name, DB: req.DB}, privs, err
}

// cmdGrantPrivilegesToRole adds privileges to a user-defined role.
func cmdGrantPrivilegesToRole(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	name, privs, err := parseRolePrivileges(req)
	if err != nil {
		return nil, err
	}
	return nil, s.users.GrantPrivilegesToRole(ctx, name, privs)
}
