package auth

import "testing"

// grantsOf resolves built-in roles to grants, without a store.
func grantsOf(t *testing.T, roles ...RoleName) *Grants {
	t.Helper()
	g := &Grants{Roles: roles}
	for _, r := range roles {
		ps, ok := BuiltinPrivileges(r.Role, r.DB)
		if !ok {
			t.Fatalf("%s is not a built-in role", r)
		}
		g.Privs = append(g.Privs, ps...)
	}
	return g
}

// TestBuiltinRoles checks privileges of built-in roles against MongoDB's
// "Built-In Roles" reference.
func TestBuiltinRoles(t *testing.T) {
	type check struct {
		r    Resource
		a    Action
		want bool
	}
	for _, c := range []struct {
		role   RoleName
		checks []check
	}{
		{RoleName{"read", "shop"}, []check{
			{CollResource("shop", "orders"), ActFind, true},
			{DBResource("shop"), ActListCollections, true},
			{CollResource("shop", "system.js"), ActFind, true},
			{CollResource("shop", "orders"), ActInsert, false},
			{CollResource("shop", "system.users"), ActFind, false},
			{CollResource("other", "orders"), ActFind, false},
			{ClusterResource, ActListDatabases, false},
		}},
		{RoleName{"readWrite", "shop"}, []check{
			{CollResource("shop", "orders"), ActInsert, true},
			{CollResource("shop", "orders"), ActRemove, true},
			{DBResource("shop"), ActDropDatabase, false},
			{DBResource("shop"), ActCreateUser, false},
		}},
		{RoleName{"dbAdmin", "shop"}, []check{
			{DBResource("shop"), ActDropDatabase, true},
			{CollResource("shop", "orders"), ActFind, false},
			{CollResource("shop", "system.profile"), ActFind, true},
		}},
		{RoleName{"userAdmin", "shop"}, []check{
			{DBResource("shop"), ActCreateRole, true},
			{DBResource("shop"), ActGrantRole, true},
			{DBResource("shop"), ActViewRole, true},
			{DBResource("other"), ActCreateRole, false},
			{AnyNormalResource, ActRevokeRole, false},
			{CollResource("shop", "orders"), ActFind, false},
		}},
		{RoleName{"dbOwner", "shop"}, []check{
			{CollResource("shop", "orders"), ActInsert, true},
			{DBResource("shop"), ActDropDatabase, true},
			{DBResource("shop"), ActCreateRole, true},
		}},
		{RoleName{"readAnyDatabase", "admin"}, []check{
			{CollResource("shop", "orders"), ActFind, true},
			{CollResource("admin", "x"), ActFind, true},
			{ClusterResource, ActListDatabases, true},
			{CollResource("local", "startup_log"), ActFind, false},
			{CollResource("config", "transactions"), ActFind, false},
			{CollResource("shop", "orders"), ActInsert, false},
		}},
		{RoleName{"userAdminAnyDatabase", "admin"}, []check{
			{DBResource("shop"), ActCreateRole, true},
			{AnyNormalResource, ActRevokeRole, true},
			{CollResource("admin", "system.roles"), ActFind, true},
			{CollResource("shop", "orders"), ActFind, false},
		}},
		{RoleName{"clusterMonitor", "admin"}, []check{
			{ClusterResource, ActServerStatus, true},
			{ClusterResource, ActShutdown, false},
		}},
		{RoleName{"root", "admin"}, []check{
			{CollResource("shop", "orders"), ActInsert, true},
			{DBResource("shop"), ActDropDatabase, true},
			{DBResource("admin"), ActCreateRole, true},
			{AnyNormalResource, ActRevokeRole, true},
			{ClusterResource, ActServerStatus, true},
			{ClusterResource, ActShutdown, true},
			{CollResource("local", "x"), ActValidate, true},
		}},
	} {
		g := grantsOf(t, c.role)
		for _, ch := range c.checks {
			if got := g.Allowed(ch.r, Actions(ch.a)); got != ch.want {
				t.Errorf("%s: %s on %v = %v, want %v", c.role, ch.a, ch.r, got, ch.want)
			}
		}
	}
}

// TestBuiltinRoleNames: database roles exist on every database, the
// others only on admin.
func TestBuiltinRoleNames(t *testing.T) {
	for _, c := range []struct {
		role, db string
		want     bool
	}{
		{"read", "shop", true},
		{"dbOwner", "admin", true},
		{"root", "admin", true},
		{"root", "shop", false},
		{"readAnyDatabase", "shop", false},
		{"reader", "shop", false},
	} {
		if got := IsBuiltinRole(c.role, c.db); got != c.want {
			t.Errorf("IsBuiltinRole(%s, %s) = %v", c.role, c.db, got)
		}
		if _, got := BuiltinPrivileges(c.role, c.db); got != c.want {
			t.Errorf("BuiltinPrivileges(%s, %s) found = %v", c.role, c.db, got)
		}
	}
	for _, db := range []string{"shop", "admin"} {
		for _, n := range BuiltinRoleNames(db) {
			if !IsBuiltinRole(n, db) {
				t.Errorf("BuiltinRoleNames(%s) lists %s, not a built-in role there", db, n)
			}
		}
	}
	// One privilege per resource pattern, as rolesInfo shows them.
	ps, _ := BuiltinPrivileges("root", "admin")
	seen := map[Pattern]bool{}
	for _, p := range ps {
		if seen[p.Resource] {
			t.Errorf("root lists %+v twice", p.Resource)
		}
		seen[p.Resource] = true
	}
}
