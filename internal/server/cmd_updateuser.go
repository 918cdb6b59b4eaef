package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(cmdUpdateUser, "updateUser")
	ruled(updateUserNeeds, "updateUser")
}

// updateUserNeeds: changePassword for a new password, changeCustomData
// for customData; when roles are replaced, as mongod, revokeRole on every
// normal resource (any role could be taken away) and grantRole on the
// given roles' databases.
func updateUserNeeds(req *Request) ([]need, error) {
	var acts auth.ActionSet
	if _, err := req.Cmd.LookupErr("pwd"); err == nil {
		acts.Add(auth.ActChangePassword)
	}
	if _, err := req.Cmd.LookupErr("customData"); err == nil {
		acts.Add(auth.ActChangeCustomData)
	}
	out := []need{{res: auth.DBResource(req.DB), acts: acts}}
	if v, err := req.Cmd.LookupErr("roles"); err == nil {
		rs, _ := auth.ParseRoles(v, req.DB)
		out = append(out, need{res: auth.AnyNormalResource, acts: auth.Actions(auth.ActRevokeRole)})
		for _, r := range rs {
			out = append(out, need{res: auth.DBResource(r.DB), acts: auth.Actions(auth.ActGrantRole)})
		}
	}
	return out, nil
}

// cmdUpdateUser replaces a user's password, roles or customData.
func cmdUpdateUser(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	spec, err := parseUserSpec(req)
	if err != nil {
		return nil, err
	}
	if spec.pwd == nil && !spec.hasRoles && spec.customData == nil && spec.mechanisms == nil {
		return nil, errs.New(errs.BadValue, "Must specify at least one field to update in updateUser")
	}
	u, err := s.users.User(ctx, spec.name, req.DB)
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, errs.New(errs.UserNotFound, "Could not find user \"%s\" for db \"%s\"", spec.name, req.DB)
	}
	if spec.pwd != nil {
		if u.Creds, err = credentials(spec.name, *spec.pwd, spec.mechanisms); err != nil {
			return nil, err
		}
	} else if spec.mechanisms != nil {
		return nil, errs.New(errs.BadValue, "mechanisms field must be a subset of previously set mechanisms unless a new password is given")
	}
	if spec.hasRoles {
		u.Roles = spec.roles
	}
	if spec.customData != nil {
		u.CustomData = spec.customData
	}
	return nil, s.users.ReplaceUser(ctx, u)
}
