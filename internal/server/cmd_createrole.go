package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdCreateRole, requires(createRoleNeeds), "createRole").takingWriteConcern())
}

// roleSpec is what createRole and updateRole take (mongod's IDL: the
// role name, privileges, roles, authenticationRestrictions, and the
// generic writeConcern and comment). A nil privs or roles was not given.
type roleSpec struct {
	name  string
	privs *[]auth.Privilege
	roles *[]auth.RoleName
	// restrictions: authenticationRestrictions was given (only an empty
	// array is accepted: Lode has no authentication restrictions).
	restrictions bool
}

// cmdRoleName reads the command's own field, the role's name.
func cmdRoleName(req *Request) (string, error) {
	v := req.Cmd.Lookup(req.Name)
	name, ok := v.StringValueOK()
	if !ok {
		return "", wrongType(req.Name, req.Name, v, "string")
	}
	return name, nil
}

// parseRoleSpec reads createRole and updateRole.
func parseRoleSpec(req *Request) (roleSpec, error) {
	var spec roleSpec
	var err error
	if spec.name, err = cmdRoleName(req); err != nil {
		return spec, err
	}
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		switch k {
		case "privileges":
			ps, err := argPrivileges(req, k, v)
			spec.privs = &ps
			return true, err
		case "roles":
			rs, err := argRoles(req, k, v)
			spec.roles = &rs
			return true, err
		case "authenticationRestrictions":
			spec.restrictions = true
			return true, checkNoRestrictions(req, k, v)
		}
		return false, nil
	})
	return spec, err
}

// argPrivileges reads a privileges array argument.
func argPrivileges(req *Request, field string, v bsoncore.Value) ([]auth.Privilege, error) {
	if v.Type != bsoncore.TypeArray {
		return nil, wrongType(req.Name, field, v, "array")
	}
	return auth.ParsePrivileges(v)
}

// argRoles reads a roles array argument: role names of the command's
// database, or {role, db} documents.
func argRoles(req *Request, field string, v bsoncore.Value) ([]auth.RoleName, error) {
	if v.Type != bsoncore.TypeArray {
		return nil, wrongType(req.Name, field, v, "array")
	}
	return auth.ParseRoles(v, req.DB)
}

// checkNoRestrictions accepts an empty authenticationRestrictions array
// and refuses any restriction (NotImplemented).
func checkNoRestrictions(req *Request, field string, v bsoncore.Value) error {
	arr, ok := v.ArrayOK()
	if !ok {
		return wrongType(req.Name, field, v, "array")
	}
	if vals, _ := arr.Values(); len(vals) == 0 {
		return nil
	}
	return errs.New(errs.NotImplemented, "authenticationRestrictions are not supported by Lode")
}

// cmdCreateRole creates a user-defined role on the command's database.
func cmdCreateRole(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	spec, err := parseRoleSpec(req)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name  string
		given bool
	}{{"privileges", spec.privs != nil}, {"roles", spec.roles != nil}} {
		if !f.given {
			return nil, errs.New(errs.Location40414, "BSON field 'createRole.%s' is missing but a required field", f.name)
		}
	}
	r := &auth.Role{Name: spec.name, DB: req.DB, Privileges: *spec.privs, Roles: *spec.roles}
	return nil, s.users.CreateRole(ctx, r)
}
