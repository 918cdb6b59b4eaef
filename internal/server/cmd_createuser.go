package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdCreateUser, requires(createUserNeeds), "createUser").takingWriteConcern().redacting("pwd"))
}

// userSpec is what createUser and updateUser take.
type userSpec struct {
	name       string
	pwd        *string
	roles      []auth.RoleName
	hasRoles   bool
	customData bsoncore.Document
	mechanisms []string
	// restrictions: an (empty) authenticationRestrictions was given.
	restrictions bool
}

// parseUserSpec reads createUser/updateUser fields (mongod's IDL:
// pwd, customData, roles, digestPassword, writeConcern,
// authenticationRestrictions, mechanisms, comment).
func parseUserSpec(req *Request) (userSpec, error) {
	var u userSpec
	u.name, _ = req.Cmd.Lookup(req.Name).StringValueOK()
	err := eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "pwd":
			p, err := argString(req.Name, k, v)
			u.pwd = &p
			return true, err
		case "roles":
			rs, err := auth.ParseRoles(v, req.DB)
			u.roles, u.hasRoles = rs, true
			return true, err
		case "customData":
			d, err := argDoc(req.Name, k, v)
			u.customData = d
			return true, err
		case "mechanisms":
			arr, ok := v.ArrayOK()
			if !ok {
				return true, errs.New(errs.TypeMismatch, "BSON field '%s.mechanisms' is the wrong type '%s', expected type 'array'", req.Name, bsonutil.TypeName(v.Type))
			}
			vals, _ := arr.Values()
			for _, m := range vals {
				name, ok := m.StringValueOK()
				if !ok || (name != auth.MechSHA1 && name != auth.MechSHA256) {
					return true, errs.New(errs.BadValue, "Unknown auth mechanism '%s'", m)
				}
				u.mechanisms = append(u.mechanisms, name)
			}
			return true, nil
		case "digestPassword":
			if b, ok := v.BooleanOK(); ok && !b {
				return true, errs.New(errs.NotImplemented, "digestPassword: false is not supported: Lode digests passwords itself")
			}
			return true, nil
		case "authenticationRestrictions":
			if arr, ok := v.ArrayOK(); ok {
				if vals, _ := arr.Values(); len(vals) == 0 {
					u.restrictions = true
					return true, nil
				}
			}
			return true, errs.New(errs.NotImplemented, "authenticationRestrictions are not supported by Lode")
		}
		return false, nil
	})
	if err != nil {
		return u, err
	}
	if u.name == "" {
		return u, errs.New(errs.BadValue, "User document needs 'user' field to be non-empty")
	}
	return u, nil
}

// credentials derives the stored credentials for mechs (both SCRAM
// mechanisms by default, as mongod).
func credentials(name, pwd string, mechs []string) (map[string]auth.Credential, error) {
	if pwd == "" {
		return nil, errs.New(errs.BadValue, "Password cannot be empty")
	}
	if len(mechs) == 0 {
		mechs = []string{auth.MechSHA1, auth.MechSHA256}
	}
	out := map[string]auth.Credential{}
	for _, m := range mechs {
		c, err := auth.NewCredential(m, name, pwd)
		if err != nil {
			return nil, errs.Wrap(err, errs.BadValue, "%s: %v", m, err)
		}
		out[m] = c
	}
	return out, nil
}

// cmdCreateUser adds a user to the command's database.
func cmdCreateUser(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	spec, err := parseUserSpec(req)
	if err != nil {
		return nil, err
	}
	if req.DB == "$external" {
		return nil, errs.New(errs.NotImplemented, "users on $external (x.509, LDAP, Kerberos) are not supported by Lode")
	}
	if spec.pwd == nil {
		return nil, errs.New(errs.BadValue, "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db")
	}
	if !spec.hasRoles {
		return nil, errs.New(errs.Location40414, "BSON field 'createUser.roles' is missing but a required field")
	}
	creds, err := credentials(spec.name, *spec.pwd, spec.mechanisms)
	if err != nil {
		return nil, err
	}
	u := &auth.User{Name: spec.name, DB: req.DB, UserID: auth.NewUserID(), Creds: creds, Roles: spec.roles, CustomData: spec.customData}
	g, err := s.connGrants(ctx, req)
	if err != nil {
		return nil, err
	}
	if s.cfg.Auth && g == nil {
		// Unauthenticated under --auth: authorize let it through on the
		// localhost exception, which must still hold when the user is
		// written (auth.CreateFirstUser).
		err = s.users.CreateFirstUser(ctx, u)
	} else {
		err = s.users.CreateUser(ctx, u)
	}
	if err != nil {
		return nil, err
	}
	return nil, nil
}
