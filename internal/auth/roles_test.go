package auth

import (
	"context"
	"slices"
	"testing"

	"github.com/lodedb/lode/internal/errs"
)

// code is err's error code, 0 for none.
func code(err error) errs.Code {
	if e := errs.As(err); e != nil {
		return e.Code
	}
	return 0
}

func names(rs []RoleName) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

// TestRoleWrites: the role writes' checks and their codes, as mongod
// 7.0's role commands; every write moves Generation.
func TestRoleWrites(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	// Before admin.system.roles exists there is simply no role.
	if r, err := s.Role(ctx, "a", "shop"); r != nil || err != nil {
		t.Fatalf("Role on a fresh store: %v %v", r, err)
	}
	if rs, err := s.Roles(ctx, ""); len(rs) != 0 || err != nil {
		t.Fatalf("Roles on a fresh store: %v %v", rs, err)
	}
	if err := s.DropRole(ctx, RoleName{"a", "shop"}); code(err) != errs.RoleNotFound {
		t.Fatalf("DropRole on a fresh store: %v", err)
	}
	if n, err := s.DropAllRoles(ctx, "shop"); n != 0 || err != nil {
		t.Fatalf("DropAllRoles on a fresh store: %d %v", n, err)
	}
	find := []Privilege{{collPattern("shop", "o"), Actions(ActFind)}}
	gen := s.Generation()
	moved := func(what string) {
		t.Helper()
		if g := s.Generation(); g == gen {
			t.Errorf("%s did not move Generation", what)
		} else {
			gen = g
		}
	}
	if err := s.CreateRole(ctx, &Role{Name: "a", DB: "shop", Privileges: find}); err != nil {
		t.Fatal(err)
	}
	moved("CreateRole")
	if err := s.CreateRole(ctx, &Role{Name: "b", DB: "shop", Roles: []RoleName{{"a", "shop"}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want errs.Code
	}{
		{"create existing", s.CreateRole(ctx, &Role{Name: "a", DB: "shop"}), errs.Location51002},
		{"create built-in name", s.CreateRole(ctx, &Role{Name: "readWrite", DB: "shop"}), errs.BadValue},
		{"create root on admin", s.CreateRole(ctx, &Role{Name: "root", DB: "admin"}), errs.BadValue},
		{"create empty name", s.CreateRole(ctx, &Role{Name: "", DB: "shop"}), errs.BadValue},
		{"create in local", s.CreateRole(ctx, &Role{Name: "x", DB: "local"}), errs.BadValue},
		{"create in $external", s.CreateRole(ctx, &Role{Name: "x", DB: "$external"}), errs.BadValue},
		{"create inheriting itself", s.CreateRole(ctx, &Role{Name: "x", DB: "shop", Roles: []RoleName{{"x", "shop"}}}), errs.InvalidRoleModification},
		{"create inheriting another database's role", s.CreateRole(ctx, &Role{Name: "x", DB: "shop", Roles: []RoleName{{"read", "other"}}}), errs.InvalidRoleModification},
		{"create inheriting an unknown role", s.CreateRole(ctx, &Role{Name: "x", DB: "shop", Roles: []RoleName{{"nope", "shop"}}}), errs.RoleNotFound},
		{"create with a cluster privilege", s.CreateRole(ctx, &Role{Name: "x", DB: "shop", Privileges: []Privilege{{cluster, Actions(ActServerStatus)}}}), errs.InvalidRoleModification},
		{"create with another database's privilege", s.CreateRole(ctx, &Role{Name: "x", DB: "shop", Privileges: []Privilege{{dbPattern("other"), Actions(ActFind)}}}), errs.InvalidRoleModification},
		{"grant a cycle", s.GrantRolesToRole(ctx, RoleName{"a", "shop"}, []RoleName{{"b", "shop"}}), errs.InvalidRoleModification},
		{"grant itself", s.GrantRolesToRole(ctx, RoleName{"a", "shop"}, []RoleName{{"a", "shop"}}), errs.InvalidRoleModification},
		{"grant to unknown", s.GrantRolesToRole(ctx, RoleName{"nope", "shop"}, []RoleName{{"read", "shop"}}), errs.RoleNotFound},
		{"grant to built-in", s.GrantRolesToRole(ctx, RoleName{"read", "shop"}, []RoleName{{"a", "shop"}}), errs.BadValue},
		{"update a cycle", s.UpdateRole(ctx, RoleName{"a", "shop"}, nil, &[]RoleName{{"b", "shop"}}), errs.InvalidRoleModification},
		{"update unknown", s.UpdateRole(ctx, RoleName{"nope", "shop"}, nil, &[]RoleName{}), errs.RoleNotFound},
		{"update built-in (not stored)", s.UpdateRole(ctx, RoleName{"read", "shop"}, nil, &[]RoleName{}), errs.RoleNotFound},
		{"privileges to built-in", s.GrantPrivilegesToRole(ctx, RoleName{"read", "shop"}, find), errs.BadValue},
		{"privileges elsewhere", s.GrantPrivilegesToRole(ctx, RoleName{"a", "shop"}, []Privilege{{anyNormal, Actions(ActFind)}}), errs.InvalidRoleModification},
		{"privileges to unknown", s.GrantPrivilegesToRole(ctx, RoleName{"nope", "shop"}, find), errs.RoleNotFound},
		{"revoke privileges from built-in", s.RevokePrivilegesFromRole(ctx, RoleName{"read", "shop"}, find), errs.BadValue},
		{"revoke roles from built-in", s.RevokeRolesFromRole(ctx, RoleName{"read", "shop"}, []RoleName{{"a", "shop"}}), errs.BadValue},
		{"drop built-in", s.DropRole(ctx, RoleName{"read", "shop"}), errs.BadValue},
		{"drop unknown", s.DropRole(ctx, RoleName{"nope", "shop"}), errs.RoleNotFound},
	} {
		if got := code(c.err); got != c.want {
			t.Errorf("%s: %v, want code %d", c.name, c.err, c.want)
		}
	}
	// A role on admin may inherit any database's roles and hold
	// privileges on anything.
	if err := s.CreateRole(ctx, &Role{Name: "ops", DB: "admin", Roles: []RoleName{{"b", "shop"}, {"read", "other"}},
		Privileges: []Privilege{{cluster, Actions(ActServerStatus)}, {anyNormal, Actions(ActFind)}}}); err != nil {
		t.Fatal(err)
	}
	// A cycle through another database is found too.
	if err := s.GrantRolesToRole(ctx, RoleName{"a", "shop"}, []RoleName{{"ops", "admin"}}); code(err) != errs.InvalidRoleModification {
		t.Errorf("a cycle through admin: %v", err)
	}

	gen = s.Generation()
	if err := s.GrantPrivilegesToRole(ctx, RoleName{"a", "shop"}, []Privilege{{collPattern("shop", "o"), Actions(ActInsert)}, {dbPattern("shop"), Actions(ActListCollections)}}); err != nil {
		t.Fatal(err)
	}
	moved("GrantPrivilegesToRole")
	a, _ := s.Role(ctx, "a", "shop")
	if len(a.Privileges) != 2 || a.Privileges[0].Actions != Actions(ActFind, ActInsert) {
		t.Errorf("privileges after the grant: %+v", a.Privileges)
	}
	// Revoking on the database pattern leaves the collection privilege.
	if err := s.RevokePrivilegesFromRole(ctx, RoleName{"a", "shop"}, []Privilege{{dbPattern("shop"), Actions(ActListCollections, ActInsert)}}); err != nil {
		t.Fatal(err)
	}
	moved("RevokePrivilegesFromRole")
	a, _ = s.Role(ctx, "a", "shop")
	if len(a.Privileges) != 1 || a.Privileges[0].Resource != collPattern("shop", "o") || a.Privileges[0].Actions != Actions(ActFind, ActInsert) {
		t.Errorf("privileges after revoking on shop: %+v", a.Privileges)
	}

	privs, err := s.Privileges(ctx, []RoleName{{"ops", "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	g := &Grants{Privs: privs}
	if !g.Allowed(CollResource("shop", "o"), Actions(ActInsert)) || !g.Allowed(CollResource("other", "x"), Actions(ActFind, ActListIndexes)) ||
		!g.Allowed(ClusterResource, Actions(ActServerStatus)) || g.Allowed(CollResource("shop", "o"), Actions(ActRemove)) {
		t.Errorf("privileges through ops → b → a and read@other: %+v", privs)
	}
	inh, _ := s.InheritedRoles(ctx, []RoleName{{"ops", "admin"}})
	if want := []string{"a@shop", "b@shop", "ops@admin", "read@other"}; !slices.Equal(names(inh), want) {
		t.Errorf("InheritedRoles: %v, want %v", names(inh), want)
	}

	// DropRole pulls the role from users and roles.
	cred, _ := NewCredential(MechSHA256, "u", "pw")
	if err := s.CreateUser(ctx, &User{Name: "u", DB: "shop", UserID: NewUserID(), Creds: map[string]Credential{MechSHA256: cred},
		Roles: []RoleName{{"a", "shop"}, {"read", "shop"}, {"ops", "admin"}}}); err != nil {
		t.Fatal(err)
	}
	gen = s.Generation()
	if err := s.DropRole(ctx, RoleName{"a", "shop"}); err != nil {
		t.Fatal(err)
	}
	moved("DropRole")
	u, _ := s.User(ctx, "u", "shop")
	if want := []string{"read@shop", "ops@admin"}; !slices.Equal(names(u.Roles), want) {
		t.Errorf("user roles after DropRole: %v, want %v", names(u.Roles), want)
	}
	b, _ := s.Role(ctx, "b", "shop")
	if len(b.Roles) != 0 {
		t.Errorf("b still inherits the dropped role: %v", b.Roles)
	}
	// Re-creating a dropped role does not bring it back to its holders.
	if err := s.CreateRole(ctx, &Role{Name: "a", DB: "shop"}); err != nil {
		t.Fatal(err)
	}
	if u, _ := s.User(ctx, "u", "shop"); len(u.Roles) != 2 {
		t.Errorf("user roles after re-creating a: %v", u.Roles)
	}

	// DropAllRoles: like mongod's dropAllRolesFromDatabase, every role of
	// the database leaves users and roles, built-in ones too.
	n, err := s.DropAllRoles(ctx, "shop")
	if err != nil || n != 2 {
		t.Fatalf("DropAllRoles: %d %v, want 2 (a, b)", n, err)
	}
	u, _ = s.User(ctx, "u", "shop")
	if want := []string{"ops@admin"}; !slices.Equal(names(u.Roles), want) {
		t.Errorf("user roles after DropAllRoles: %v, want %v", names(u.Roles), want)
	}
	ops, _ := s.Role(ctx, "ops", "admin")
	if want := []string{"read@other"}; !slices.Equal(names(ops.Roles), want) {
		t.Errorf("ops roles after DropAllRoles(shop): %v, want %v", names(ops.Roles), want)
	}
	if rs, _ := s.Roles(ctx, "shop"); len(rs) != 0 {
		t.Errorf("roles left on shop: %v", rs)
	}
}
