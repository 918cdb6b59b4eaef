package auth

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
)

// The role commands' writes and their checks, in the order mongod 7.0's
// user management commands make them. Each holds the store's umc lock
// across its read-modify-write, and every write bumps Generation, so
// connections resolve their privileges again.

// errBuiltinRole is mongod's refusal to modify or drop a built-in role.
func errBuiltinRole(r RoleName) error {
	return errs.New(errs.BadValue, "%s is a built-in role and cannot be modified", r)
}

// checkGrantRolesToRole is mongod's checkOkayToGrantRolesToRole: a role
// cannot be granted itself, a role outside admin only roles of its own
// database, every role granted must exist, and none may already inherit
// role (a cycle).
func (s *Store) checkGrantRolesToRole(ctx context.Context, role RoleName, add []RoleName) error {
	for _, r := range add {
		if r == role {
			return errs.New(errs.InvalidRoleModification, "Cannot grant role %s to itself.", role)
		}
		if role.DB != "admin" && r.DB != role.DB {
			return errs.New(errs.InvalidRoleModification, "Roles on the '%s' database cannot be granted roles from other databases", role.DB)
		}
	}
	if err := s.checkRoles(ctx, add); err != nil {
		if e := errs.As(err); e != nil {
			return errs.New(e.Code, "Cannot grant roles to '%s': %s", role, e.Msg)
		}
		return err
	}
	return s.walkRoles(ctx, add, func(r RoleName, _ *Role) error {
		if r == role {
			return errs.New(errs.InvalidRoleModification, "Granting roles to %s would introduce a cycle in the role graph", role)
		}
		return nil
	})
}

// checkPrivilegesForRole is mongod's checkOkayToGrantPrivilegesToRole: a
// role outside admin may only hold privileges on its own database and
// its collections.
func checkPrivilegesForRole(role RoleName, ps []Privilege) error {
	if role.DB == "admin" {
		return nil
	}
	for _, p := range ps {
		k := p.Resource.Kind
		if (k == PatternDB || k == PatternCollection) && p.Resource.DB == role.DB {
			continue
		}
		return errs.New(errs.InvalidRoleModification, "Roles on the '%s' database cannot be granted privileges that target other databases or the cluster", role.DB)
	}
	return nil
}

// CreateRole inserts the user-defined role r: not in local or $external,
// not named like a built-in role (BadValue), its roles and privileges
// checked as mongod; an existing role is 51002.
func (s *Store) CreateRole(ctx context.Context, r *Role) error {
	name := RoleName{r.Name, r.DB}
	switch {
	case r.Name == "":
		return errs.New(errs.BadValue, "Role name must be non-empty")
	case r.DB == "local":
		return errs.New(errs.BadValue, "Cannot create roles in the local database")
	case r.DB == "$external":
		return errs.New(errs.BadValue, "Cannot create roles in the $external database")
	case IsBuiltinRole(r.Name, r.DB):
		return errs.New(errs.BadValue, "Cannot create roles with the same name as a built-in role")
	}
	s.umc.Lock()
	defer s.umc.Unlock()
	if err := s.checkGrantRolesToRole(ctx, name, r.Roles); err != nil {
		return err
	}
	if err := checkPrivilegesForRole(name, r.Privileges); err != nil {
		return err
	}
	r.Privileges = MergePrivileges(nil, r.Privileges)
	return s.insertNew(ctx, rolesColl, r.doc(), func() error {
		return errs.New(errs.Location51002, "Role \"%s\" already exists", name)
	})
}

// modifyRole reads name, lets change edit it and writes it back; a role
// that is not stored is RoleNotFound (31). The caller holds umc.
func (s *Store) modifyRole(ctx context.Context, name RoleName, change func(r *Role)) error {
	notFound := func() error { return errs.New(errs.RoleNotFound, "Role %s not found", name) }
	r, err := s.Role(ctx, name.Role, name.DB)
	if err != nil {
		return err
	}
	if r == nil {
		return notFound()
	}
	change(r)
	return s.replace(ctx, rolesColl, r.ID(), r.doc(), notFound)
}

// UpdateRole replaces the privileges (privs non-nil) and the roles
// (roles non-nil) of a user-defined role.
func (s *Store) UpdateRole(ctx context.Context, name RoleName, privs *[]Privilege, roles *[]RoleName) error {
	s.umc.Lock()
	defer s.umc.Unlock()
	if err := s.checkRoles(ctx, []RoleName{name}); err != nil {
		return err
	}
	if roles != nil {
		if err := s.checkGrantRolesToRole(ctx, name, *roles); err != nil {
			return err
		}
	}
	if privs != nil {
		if err := checkPrivilegesForRole(name, *privs); err != nil {
			return err
		}
	}
	return s.modifyRole(ctx, name, func(r *Role) {
		if privs != nil {
			r.Privileges = MergePrivileges(nil, *privs)
		}
		if roles != nil {
			r.Roles = *roles
		}
	})
}

// GrantPrivilegesToRole adds ps to a user-defined role's privileges.
func (s *Store) GrantPrivilegesToRole(ctx context.Context, name RoleName, ps []Privilege) error {
	if IsBuiltinRole(name.Role, name.DB) {
		return errBuiltinRole(name)
	}
	s.umc.Lock()
	defer s.umc.Unlock()
	if err := checkPrivilegesForRole(name, ps); err != nil {
		return err
	}
	return s.modifyRole(ctx, name, func(r *Role) { r.Privileges = MergePrivileges(r.Privileges, ps) })
}

// RevokePrivilegesFromRole removes the actions of ps from the role's
// privilege on the same resource (the resource must be the same pattern,
// as in mongod: revoking {db: "x", collection: ""} does not touch a
// privilege on x.y); a privilege left without actions goes.
func (s *Store) RevokePrivilegesFromRole(ctx context.Context, name RoleName, ps []Privilege) error {
	if IsBuiltinRole(name.Role, name.DB) {
		return errBuiltinRole(name)
	}
	s.umc.Lock()
	defer s.umc.Unlock()
	return s.modifyRole(ctx, name, func(r *Role) {
		for _, rm := range ps {
			for i := range r.Privileges {
				if r.Privileges[i].Resource != rm.Resource {
					continue
				}
				r.Privileges[i].Actions = r.Privileges[i].Actions.Minus(rm.Actions)
				if r.Privileges[i].Actions.Empty() {
					r.Privileges = append(r.Privileges[:i], r.Privileges[i+1:]...)
				}
				break
			}
		}
	})
}

// GrantRolesToRole adds rs to the roles a user-defined role inherits.
func (s *Store) GrantRolesToRole(ctx context.Context, name RoleName, rs []RoleName) error {
	if IsBuiltinRole(name.Role, name.DB) {
		return errBuiltinRole(name)
	}
	s.umc.Lock()
	defer s.umc.Unlock()
	if err := s.checkGrantRolesToRole(ctx, name, rs); err != nil {
		return err
	}
	return s.modifyRole(ctx, name, func(r *Role) {
		for _, x := range rs {
			if !containsRole(r.Roles, x) {
				r.Roles = append(r.Roles, x)
			}
		}
	})
}

// RevokeRolesFromRole removes rs from the roles a user-defined role
// inherits; roles it does not have are ignored.
func (s *Store) RevokeRolesFromRole(ctx context.Context, name RoleName, rs []RoleName) error {
	if IsBuiltinRole(name.Role, name.DB) {
		return errBuiltinRole(name)
	}
	s.umc.Lock()
	defer s.umc.Unlock()
	return s.modifyRole(ctx, name, func(r *Role) {
		gone := map[RoleName]bool{}
		for _, x := range rs {
			gone[x] = true
		}
		r.Roles = without(r.Roles, gone)
	})
}

// DropRole removes a user-defined role, first from every user and role
// granted it, as mongod does.
func (s *Store) DropRole(ctx context.Context, name RoleName) error {
	if IsBuiltinRole(name.Role, name.DB) {
		return errBuiltinRole(name)
	}
	s.umc.Lock()
	defer s.umc.Unlock()
	if err := s.checkRoles(ctx, []RoleName{name}); err != nil {
		return err
	}
	_, err := s.dropRoles(ctx, idFilter(name.DB+"."+name.Role), func(r RoleName) bool { return r == name })
	return err
}

// DropAllRoles removes the user-defined roles of db and returns how many.
// Like mongod's dropAllRolesFromDatabase, it first removes every role of
// db, built-in ones included, from all users and roles.
func (s *Store) DropAllRoles(ctx context.Context, db string) (int, error) {
	s.umc.Lock()
	defer s.umc.Unlock()
	filter := bsoncore.NewDocumentBuilder().AppendString("db", db).Build()
	return s.dropRoles(ctx, filter, func(r RoleName) bool { return r.DB == db })
}

// dropRoles pulls the roles pull selects from every user and role, then
// deletes the role documents matching filter. The caller holds umc.
func (s *Store) dropRoles(ctx context.Context, filter bsoncore.Document, pull func(RoleName) bool) (int, error) {
	keep := func(rs []RoleName) ([]RoleName, bool) {
		out := rs[:0:0]
		for _, r := range rs {
			if !pull(r) {
				out = append(out, r)
			}
		}
		return out, len(out) != len(rs)
	}
	users, err := s.Users(ctx, "")
	if err != nil {
		return 0, err
	}
	for _, u := range users {
		if kept, changed := keep(u.Roles); changed {
			u.Roles = kept
			if err := s.replace(ctx, usersColl, u.ID(), u.doc(), func() error { return nil }); err != nil {
				return 0, err
			}
		}
	}
	roles, err := s.Roles(ctx, "")
	if err != nil {
		return 0, err
	}
	for _, r := range roles {
		if kept, changed := keep(r.Roles); changed {
			r.Roles = kept
			if err := s.replace(ctx, rolesColl, r.ID(), r.doc(), func() error { return nil }); err != nil {
				return 0, err
			}
		}
	}
	return s.drop(ctx, rolesColl, filter)
}

func without(rs []RoleName, gone map[RoleName]bool) []RoleName {
	out := rs[:0:0]
	for _, r := range rs {
		if !gone[r] {
			out = append(out, r)
		}
	}
	return out
}
