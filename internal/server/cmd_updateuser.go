package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdUpdateUser, checkedBy(updateUserCheck), "updateUser").takingWriteConcern().redacting("pwd"))
}

// updateUserCheck is mongod's updateUser authorization: a new password
// needs changePassword on the database, or changeOwnPassword when the
// user changes its own; customData likewise changeCustomData or
// changeOwnCustomData; replacing the roles needs revokeRole on every
// database and grantRole on each new role's database.
func updateUserCheck(req *Request, g *auth.Grants) ([]need, error) {
	name, _ := req.Cmd.Lookup("updateUser").StringValueOK()
	self := g.User.Name == name && g.User.DB == req.DB
	may := func(own, any auth.Action) bool {
		return self && g.Allowed(auth.DBResource(req.DB), auth.Actions(own)) ||
			g.Allowed(auth.DBResource(req.DB), auth.Actions(any))
	}
	if _, err := req.Cmd.LookupErr("pwd"); err == nil && !may(auth.ActChangeOwnPassword, auth.ActChangePassword) {
		return nil, errs.New(errs.Unauthorized, "Not authorized to change password of user: %s@%s", name, req.DB)
	}
	if _, err := req.Cmd.LookupErr("customData"); err == nil && !may(auth.ActChangeOwnCustomData, auth.ActChangeCustomData) {
		return nil, errs.New(errs.Unauthorized, "Not authorized to change customData of user: %s@%s", name, req.DB)
	}
	if v, err := req.Cmd.LookupErr("roles"); err == nil {
		// Any role may be revoked, so revokeRole on every database.
		if !g.Allowed(auth.AnyNormalResource, auth.Actions(auth.ActRevokeRole)) {
			return nil, errs.New(errs.Unauthorized, "In order to use updateUser to set roles array, must be authorized to revoke any role in the system")
		}
		rs, _ := auth.ParseRoles(v, req.DB)
		for _, r := range rs {
			if !g.Allowed(auth.DBResource(r.DB), auth.Actions(auth.ActGrantRole)) {
				return nil, errs.New(errs.Unauthorized, "Not authorized to grant role: %s", r)
			}
		}
	}
	return nil, nil
}

// cmdUpdateUser replaces a user's password, roles or customData.
func cmdUpdateUser(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	spec, err := parseUserSpec(req)
	if err != nil {
		return nil, err
	}
	if spec.pwd == nil && !spec.hasRoles && spec.customData == nil && spec.mechanisms == nil && !spec.restrictions {
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
		// Without a new password the user keeps the credentials of the
		// listed mechanisms only, which it must already have.
		kept := make(map[string]auth.Credential, len(spec.mechanisms))
		for _, m := range spec.mechanisms {
			c, ok := u.Creds[m]
			if !ok {
				return nil, errs.New(errs.BadValue, "mechanisms field must be a subset of previously set mechanisms unless a new password is given")
			}
			kept[m] = c
		}
		if len(kept) == 0 {
			return nil, errs.New(errs.BadValue, "mechanisms field must not be empty")
		}
		u.Creds = kept
	}
	if spec.hasRoles {
		u.Roles = spec.roles
	}
	if spec.customData != nil {
		u.CustomData = spec.customData
	}
	return nil, s.users.ReplaceUser(ctx, u)
}
