package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdGrantRolesToUser, requires(grantRolesNeeds(auth.ActGrantRole)), "grantRolesToUser").takingWriteConcern())
	register(admin(cmdRevokeRolesFromUser, requires(grantRolesNeeds(auth.ActRevokeRole)), "revokeRolesFromUser").takingWriteConcern())
}

// parseUserRoles reads {<cmd>: name, roles: [...]} of grantRolesToUser,
// revokeRolesFromUser, grantRolesToRole and revokeRolesFromRole; the
// array must not be empty.
func parseUserRoles(req *Request) (string, []auth.RoleName, error) {
	name, err := cmdRoleName(req)
	if err != nil {
		return "", nil, err
	}
	var roles []auth.RoleName
	seen := false
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		if k != "roles" {
			return false, nil
		}
		seen = true
		var err error
		roles, err = argRoles(req, k, v)
		return true, err
	})
	switch {
	case err != nil:
	case !seen:
		err = errs.New(errs.Location40414, "BSON field '%s.roles' is missing but a required field", req.Name)
	case len(roles) == 0:
		err = errs.New(errs.BadValue, "%s command requires a non-empty \"roles\" array", req.Name)
	}
	return name, roles, err
}

// cmdGrantRolesToUser adds roles to a user.
func cmdGrantRolesToUser(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	return changeUserRoles(ctx, s, req, func(have []auth.RoleName, rs []auth.RoleName) []auth.RoleName {
		for _, r := range rs {
			if !hasRole(have, r) {
				have = append(have, r)
			}
		}
		return have
	})
}

// cmdRevokeRolesFromUser removes roles from a user.
func cmdRevokeRolesFromUser(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	return changeUserRoles(ctx, s, req, func(have []auth.RoleName, rs []auth.RoleName) []auth.RoleName {
		out := have[:0:0]
		for _, h := range have {
			if !hasRole(rs, h) {
				out = append(out, h)
			}
		}
		return out
	})
}

func hasRole(rs []auth.RoleName, r auth.RoleName) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

func changeUserRoles(ctx context.Context, s *Server, req *Request, change func(have, rs []auth.RoleName) []auth.RoleName) (bsoncore.Document, error) {
	name, rs, err := parseUserRoles(req)
	if err != nil {
		return nil, err
	}
	u, err := s.users.User(ctx, name, req.DB)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, errs.New(errs.UserNotFound, "Could not find user \"%s\" for db \"%s\"", name, req.DB)
	}
	u.Roles = change(u.Roles, rs)
	return nil, s.users.ReplaceUser(ctx, u)
}
