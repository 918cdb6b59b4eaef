package server

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/auth"
	"github.com/lodedb/lode/internal/errs"
)

func init() {
	register(admin(cmdRolesInfo, requires(rolesInfoNeeds), "rolesInfo"))
}

// rolesInfoSpec is what rolesInfo takes (mongod's IDL): rolesInfo is 1
// (every user-defined role of the database), a role name, a {role, db}
// document or an array of them; showPrivileges is a bool or
// "asUserFragment"; showBuiltinRoles (with rolesInfo: 1) and
// showAuthenticationRestrictions are bools.
type rolesInfoSpec struct {
	all          bool
	names        []auth.RoleName
	showPrivs    bool
	asFragment   bool
	showBuiltin  bool
	showRestrict bool
}

// parseRolesInfoArg reads the rolesInfo field as mongod's
// UMCInfoCommandArg: the number 1 is every role of the database.
func parseRolesInfoArg(v bsoncore.Value, db string) (all bool, names []auth.RoleName, err error) {
	if n, ok := asInt64(v); ok && n == 1 {
		return true, nil, nil
	}
	if arr, ok := v.ArrayOK(); ok {
		vals, _ := arr.Values()
		for _, e := range vals {
			r, err := auth.ParseRoleName(e, db)
			if err != nil {
				return false, nil, err
			}
			names = append(names, r)
		}
		return false, names, nil
	}
	r, err := auth.ParseRoleName(v, db)
	if err != nil {
		return false, nil, err
	}
	return false, []auth.RoleName{r}, nil
}

func parseRolesInfo(req *Request) (rolesInfoSpec, error) {
	var spec rolesInfoSpec
	var err error
	if spec.all, spec.names, err = parseRolesInfoArg(req.Cmd.Lookup(req.Name), req.DB); err != nil {
		return spec, err
	}
	err = eachArg(req, func(k string, v bsoncore.Value) (bool, error) {
		var err error
		switch k {
		case "showPrivileges":
			if s, ok := v.StringValueOK(); ok {
				if s != "asUserFragment" {
					return true, errs.New(errs.BadValue, "Failed to parse 'showPrivileges', expected boolean or 'asUserFragment'")
				}
				spec.showPrivs, spec.asFragment = true, true
				return true, nil
			}
			spec.showPrivs, err = argBool(req.Name, k, v)
		case "showBuiltinRoles":
			spec.showBuiltin, err = argBool(req.Name, k, v)
		case "showAuthenticationRestrictions":
			spec.showRestrict, err = argBool(req.Name, k, v)
		default:
			return false, nil
		}
		return true, err
	})
	return spec, err
}

// cmdRolesInfo describes roles as mongod: {roles: [...]}, or with
// showPrivileges: "asUserFragment" {userFragment: {roles, inheritedRoles,
// inheritedPrivileges}} as if a user held the named roles. Roles that do
// not exist are left out.
func cmdRolesInfo(ctx context.Context, s *Server, req *Request) (bsoncore.Document, error) {
	spec, err := parseRolesInfo(req)
	if err != nil {
		return nil, err
	}
	if spec.asFragment {
		if spec.all {
			return nil, errs.New(errs.IllegalOperation, "Cannot get user fragment for all roles in a database")
		}
		frag, err := s.roleUserFragment(ctx, spec)
		if err != nil {
			return nil, err
		}
		return bsoncore.NewDocumentBuilder().AppendDocument("userFragment", frag).Build(), nil
	}
	arr := bsoncore.NewArrayBuilder()
	if spec.all {
		if spec.showBuiltin {
			for _, name := range auth.BuiltinRoleNames(req.DB) {
				arr.AppendDocument(builtinRoleInfo(auth.RoleName{Role: name, DB: req.DB}, spec, true))
			}
		}
		roles, err := s.users.Roles(ctx, req.DB)
		if err != nil {
			return nil, err
		}
		for _, r := range roles {
			d, err := s.customRoleInfo(ctx, r, spec, true)
			if err != nil {
				return nil, err
			}
			arr.AppendDocument(d)
		}
	} else {
		for _, name := range spec.names {
			if auth.IsBuiltinRole(name.Role, name.DB) {
				arr.AppendDocument(builtinRoleInfo(name, spec, false))
				continue
			}
			r, err := s.users.Role(ctx, name.Role, name.DB)
			if err != nil {
				return nil, err
			}
			if r == nil {
				continue
			}
			d, err := s.customRoleInfo(ctx, r, spec, false)
			if err != nil {
				return nil, err
			}
			arr.AppendDocument(d)
		}
	}
	return bsoncore.NewDocumentBuilder().AppendArray("roles", arr.Build()).Build(), nil
}

// appendEmptyArray appends key: [].
func appendEmptyArray(d []byte, key string) []byte {
	return bsoncore.AppendArrayElement(d, key, bsoncore.NewArrayBuilder().Build())
}

// builtinRoleInfo describes a built-in role: no _id, no roles, its
// privileges (on request) both as privileges and inheritedPrivileges.
// Listed with rolesInfo: 1 its fields come in mongod's listing order,
// named they come as mongod synthesizes a built-in role document.
func builtinRoleInfo(name auth.RoleName, spec rolesInfoSpec, listing bool) bsoncore.Document {
	privs, _ := auth.BuiltinPrivileges(name.Role, name.DB)
	idx, d := bsoncore.AppendDocumentStart(nil)
	if listing {
		d = bsoncore.AppendStringElement(d, "role", name.Role)
		d = bsoncore.AppendStringElement(d, "db", name.DB)
		d = bsoncore.AppendBooleanElement(d, "isBuiltin", true)
		d = appendEmptyArray(d, "roles")
		d = appendEmptyArray(d, "inheritedRoles")
		if spec.showPrivs {
			d = auth.AppendPrivileges(d, "privileges", privs)
			d = auth.AppendPrivileges(d, "inheritedPrivileges", privs)
		}
		if spec.showRestrict {
			d = appendEmptyArray(d, "authenticationRestrictions")
			d = appendEmptyArray(d, "inheritedAuthenticationRestrictions")
		}
	} else {
		d = bsoncore.AppendStringElement(d, "db", name.DB)
		d = bsoncore.AppendStringElement(d, "role", name.Role)
		d = appendEmptyArray(d, "roles")
		if spec.showPrivs {
			d = auth.AppendPrivileges(d, "privileges", privs)
		}
		if spec.showRestrict {
			d = appendEmptyArray(d, "authenticationRestrictions")
		}
		d = appendEmptyArray(d, "inheritedRoles")
		if spec.showPrivs {
			d = auth.AppendPrivileges(d, "inheritedPrivileges", privs)
		}
		if spec.showRestrict {
			d = appendEmptyArray(d, "inheritedAuthenticationRestrictions")
		}
		d = bsoncore.AppendBooleanElement(d, "isBuiltin", true)
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d
}

// customRoleInfo describes a user-defined role: its stored fields (_id,
// role, db, privileges on request, roles), isBuiltin, every role it
// inherits directly or not, and on request inheritedPrivileges: its own
// privileges, then those of the roles it inherits. isBuiltin comes before
// the inherited fields when listed with rolesInfo: 1 and last when the
// role is named, as in mongod.
func (s *Server) customRoleInfo(ctx context.Context, r *auth.Role, spec rolesInfoSpec, listing bool) (bsoncore.Document, error) {
	inhRoles, err := s.users.InheritedRoles(ctx, r.Roles)
	if err != nil {
		return nil, err
	}
	var inhPrivs []auth.Privilege
	if spec.showPrivs {
		sub, err := s.users.Privileges(ctx, r.Roles)
		if err != nil {
			return nil, err
		}
		inhPrivs = append(append(inhPrivs, r.Privileges...), auth.MergePrivileges(nil, sub)...)
	}
	idx, d := bsoncore.AppendDocumentStart(nil)
	d = bsoncore.AppendStringElement(d, "_id", r.ID())
	d = bsoncore.AppendStringElement(d, "role", r.Name)
	d = bsoncore.AppendStringElement(d, "db", r.DB)
	if spec.showPrivs {
		d = auth.AppendPrivileges(d, "privileges", r.Privileges)
	}
	d = auth.AppendRoles(d, "roles", r.Roles)
	if spec.showRestrict {
		d = appendEmptyArray(d, "authenticationRestrictions")
	}
	if listing {
		d = bsoncore.AppendBooleanElement(d, "isBuiltin", false)
	}
	d = auth.AppendRoles(d, "inheritedRoles", inhRoles)
	if spec.showPrivs {
		d = auth.AppendPrivileges(d, "inheritedPrivileges", inhPrivs)
	}
	if spec.showRestrict {
		d = appendEmptyArray(d, "inheritedAuthenticationRestrictions")
	}
	if !listing {
		d = bsoncore.AppendBooleanElement(d, "isBuiltin", false)
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d, nil
}

// roleUserFragment is rolesInfo's asUserFragment: the named roles, every
// role they grant (themselves included) and all their privileges, as a
// user holding them would have.
func (s *Server) roleUserFragment(ctx context.Context, spec rolesInfoSpec) (bsoncore.Document, error) {
	inhRoles, err := s.users.InheritedRoles(ctx, spec.names)
	if err != nil {
		return nil, err
	}
	privs, err := s.users.Privileges(ctx, spec.names)
	if err != nil {
		return nil, err
	}
	idx, d := bsoncore.AppendDocumentStart(nil)
	d = auth.AppendRoles(d, "roles", spec.names)
	d = auth.AppendRoles(d, "inheritedRoles", inhRoles)
	d = auth.AppendPrivileges(d, "inheritedPrivileges", auth.MergePrivileges(nil, privs))
	if spec.showRestrict {
		d = appendEmptyArray(d, "inheritedAuthenticationRestrictions")
	}
	d, _ = bsoncore.AppendDocumentEnd(d, idx)
	return d, nil
}
