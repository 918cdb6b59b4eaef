package embedding_test

import (
	"slices"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
)

// The role-management commands through the Go driver, against what
// MongoDB documents for them ("User Management Commands", "Built-In
// Roles", "Collection-Level Access Control") and mongod 7.0's error codes.

type d = bson.D
type a = bson.A

// run runs cmd on db and fails the test on an error.
func run(t *testing.T, db *mongo.Database, cmd d) bson.Raw {
	t.Helper()
	var out bson.Raw
	if err := db.RunCommand(t.Context(), cmd).Decode(&out); err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	return out
}

// priv is a privilege document on db.coll ("" for any) with actions.
func priv(db, coll string, actions ...string) d {
	acts := a{}
	for _, x := range actions {
		acts = append(acts, x)
	}
	return d{{Key: "resource", Value: d{{Key: "db", Value: db}, {Key: "collection", Value: coll}}}, {Key: "actions", Value: acts}}
}

func openAuth(t *testing.T) *lode.DB {
	t.Helper()
	db, err := lode.Open(t.TempDir(), lode.WithAuth("admin", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// roleNames reads an array of {role, db} documents as "role@db", sorted.
func roleNames(t *testing.T, v bson.RawValue) []string {
	t.Helper()
	vals, err := v.Array().Values()
	if err != nil {
		t.Fatalf("not an array: %v", v)
	}
	out := []string{}
	for _, e := range vals {
		doc := e.Document()
		out = append(out, doc.Lookup("role").StringValue()+"@"+doc.Lookup("db").StringValue())
	}
	sort.Strings(out)
	return out
}

// actionsOn pools the actions of the privileges (an array) on {db, coll}.
func actionsOn(t *testing.T, v bson.RawValue, db, coll string) []string {
	t.Helper()
	var out []string
	vals, _ := v.Array().Values()
	for _, e := range vals {
		p := e.Document()
		r := p.Lookup("resource").Document()
		rdb, _ := r.Lookup("db").StringValueOK()
		rcoll, _ := r.Lookup("collection").StringValueOK()
		if rdb != db || rcoll != coll {
			continue
		}
		acts, _ := p.Lookup("actions").Array().Values()
		for _, x := range acts {
			if !slices.Contains(out, x.StringValue()) {
				out = append(out, x.StringValue())
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestCustomRoleGrantsExactlyItsPrivileges: a role with find on one
// collection lets its user read that collection and nothing else;
// grantPrivilegesToRole and revokePrivilegesFromRole take effect on the
// user's open connection.
func TestCustomRoleGrantsExactlyItsPrivileges(t *testing.T) {
	db := openAuth(t)
	ctx := t.Context()
	shop := db.Client().Database("shop")
	if _, err := shop.Collection("orders").InsertOne(ctx, d{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := shop.Collection("stock").InsertOne(ctx, d{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	run(t, shop, d{{Key: "createRole", Value: "ordersReader"}, {Key: "privileges", Value: a{priv("shop", "orders", "find")}}, {Key: "roles", Value: a{}}})
	run(t, shop, d{{Key: "createUser", Value: "clerk"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: a{"ordersReader"}}})

	clerk := connectAs(t, db.URI(), "clerk", "pw", "shop", "")
	orders := clerk.Database("shop").Collection("orders")
	if n, err := orders.CountDocuments(ctx, d{}); err != nil || n != 1 {
		t.Fatalf("find with the role's privilege: %d %v", n, err)
	}
	_, err := orders.InsertOne(ctx, d{{Key: "_id", Value: 2}})
	wantCode(t, "insert without the insert action", err, 13)
	_, err = clerk.Database("shop").Collection("stock").Find(ctx, d{})
	wantCode(t, "find on another collection", err, 13)
	wantCode(t, "listCollections needs a database privilege", clerk.Database("shop").RunCommand(ctx, d{{Key: "listCollections", Value: 1}}).Err(), 13)

	run(t, shop, d{{Key: "grantPrivilegesToRole", Value: "ordersReader"}, {Key: "privileges", Value: a{priv("shop", "orders", "insert")}}})
	if _, err := orders.InsertOne(ctx, d{{Key: "_id", Value: 2}}); err != nil {
		t.Fatalf("insert after grantPrivilegesToRole, same client: %v", err)
	}
	info := run(t, shop, d{{Key: "rolesInfo", Value: "ordersReader"}, {Key: "showPrivileges", Value: true}})
	if got := actionsOn(t, info.Lookup("roles", "0", "privileges"), "shop", "orders"); !slices.Equal(got, []string{"find", "insert"}) {
		t.Errorf("privileges after the grant: %v, want one privilege on shop.orders with find and insert", info)
	}
	if ps, _ := info.Lookup("roles", "0", "privileges").Array().Values(); len(ps) != 1 {
		t.Errorf("privileges on one resource are kept as one privilege: %v", info)
	}

	run(t, shop, d{{Key: "revokePrivilegesFromRole", Value: "ordersReader"}, {Key: "privileges", Value: a{priv("shop", "orders", "insert")}}})
	_, err = orders.InsertOne(ctx, d{{Key: "_id", Value: 3}})
	wantCode(t, "insert after revokePrivilegesFromRole", err, 13)
	if _, err := orders.CountDocuments(ctx, d{}); err != nil {
		t.Fatalf("find after revoking insert: %v", err)
	}
	// Revoking the last action removes the privilege.
	run(t, shop, d{{Key: "revokePrivilegesFromRole", Value: "ordersReader"}, {Key: "privileges", Value: a{priv("shop", "orders", "find")}}})
	info = run(t, shop, d{{Key: "rolesInfo", Value: "ordersReader"}, {Key: "showPrivileges", Value: true}})
	if ps, _ := info.Lookup("roles", "0", "privileges").Array().Values(); len(ps) != 0 {
		t.Errorf("privileges after revoking every action: %v", info)
	}
	_, err = orders.Find(ctx, d{})
	wantCode(t, "find after revoking find", err, 13)
}

// TestRoleInheritance: a role inheriting another grants both roles'
// privileges; a cycle is InvalidRoleModification (49); dropRole takes the
// role away from users and roles; updateRole replaces what it is given.
func TestRoleInheritance(t *testing.T) {
	db := openAuth(t)
	ctx := t.Context()
	shop := db.Client().Database("shop")
	run(t, shop, d{{Key: "createRole", Value: "reader"}, {Key: "privileges", Value: a{priv("shop", "orders", "find")}}, {Key: "roles", Value: a{}}})
	run(t, shop, d{{Key: "createRole", Value: "writer"}, {Key: "privileges", Value: a{priv("shop", "orders", "insert", "update")}},
		{Key: "roles", Value: a{d{{Key: "role", Value: "reader"}, {Key: "db", Value: "shop"}}}}})
	run(t, shop, d{{Key: "createUser", Value: "w"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: a{"writer"}}})
	w := connectAs(t, db.URI(), "w", "pw", "shop", "")
	orders := w.Database("shop").Collection("orders")
	if _, err := orders.InsertOne(ctx, d{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert through the role: %v", err)
	}
	if n, err := orders.CountDocuments(ctx, d{}); err != nil || n != 1 {
		t.Fatalf("find through the inherited role: %d %v", n, err)
	}

	wantCode(t, "a role inheriting from its own member", shop.RunCommand(ctx, d{{Key: "grantRolesToRole", Value: "reader"}, {Key: "roles", Value: a{"writer"}}}).Err(), 49)
	wantCode(t, "a role granted to itself", shop.RunCommand(ctx, d{{Key: "grantRolesToRole", Value: "reader"}, {Key: "roles", Value: a{"reader"}}}).Err(), 49)
	wantCode(t, "updateRole making a cycle", shop.RunCommand(ctx, d{{Key: "updateRole", Value: "reader"}, {Key: "roles", Value: a{"writer"}}}).Err(), 49)

	info := run(t, shop, d{{Key: "rolesInfo", Value: "writer"}, {Key: "showPrivileges", Value: true}})
	role := info.Lookup("roles", "0").Document()
	if got := actionsOn(t, role.Lookup("inheritedPrivileges"), "shop", "orders"); !slices.Equal(got, []string{"find", "insert", "update"}) {
		t.Errorf("inheritedPrivileges pool the role's and its inherited role's: %v", role)
	}
	if got := actionsOn(t, role.Lookup("privileges"), "shop", "orders"); !slices.Equal(got, []string{"insert", "update"}) {
		t.Errorf("privileges are the role's own: %v", role)
	}

	// revokeRolesFromRole, then grantRolesToRole back.
	run(t, shop, d{{Key: "revokeRolesFromRole", Value: "writer"}, {Key: "roles", Value: a{"reader"}}})
	_, err := orders.Find(ctx, d{})
	wantCode(t, "find after revokeRolesFromRole", err, 13)
	run(t, shop, d{{Key: "grantRolesToRole", Value: "writer"}, {Key: "roles", Value: a{"reader"}}})
	if _, err := orders.CountDocuments(ctx, d{}); err != nil {
		t.Fatalf("find after grantRolesToRole: %v", err)
	}

	// updateRole replaces the privileges it is given and keeps the roles.
	run(t, shop, d{{Key: "updateRole", Value: "writer"}, {Key: "privileges", Value: a{priv("shop", "orders", "remove")}}})
	_, err = orders.InsertOne(ctx, d{{Key: "_id", Value: 2}})
	wantCode(t, "insert after updateRole replaced the privileges", err, 13)
	if _, err := orders.DeleteOne(ctx, d{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("remove after updateRole: %v", err)
	}
	if _, err := orders.CountDocuments(ctx, d{}); err != nil {
		t.Fatalf("find kept through the unchanged roles: %v", err)
	}

	// dropRole removes reader from writer and from users holding it.
	run(t, shop, d{{Key: "createUser", Value: "r"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: a{"reader", "read"}}})
	run(t, shop, d{{Key: "dropRole", Value: "reader"}})
	info = run(t, shop, d{{Key: "rolesInfo", Value: "writer"}})
	if got := roleNames(t, info.Lookup("roles", "0", "roles")); len(got) != 0 {
		t.Errorf("writer's roles after dropping reader: %v", got)
	}
	users := run(t, shop, d{{Key: "usersInfo", Value: "r"}})
	if got := roleNames(t, users.Lookup("users", "0", "roles")); !slices.Equal(got, []string{"read@shop"}) {
		t.Errorf("user's roles after dropRole: %v, want [read@shop]", got)
	}
	_, err = orders.Find(ctx, d{})
	wantCode(t, "find after the inherited role was dropped", err, 13)
	wantCode(t, "dropRole twice", shop.RunCommand(ctx, d{{Key: "dropRole", Value: "reader"}}).Err(), 31)
}

// TestRolesInfoShapes: rolesInfo's reply for a name, a {role, db}
// document, an array, 1 with and without showBuiltinRoles, built-in
// roles, unknown roles and asUserFragment.
func TestRolesInfoShapes(t *testing.T) {
	db := openAuth(t)
	ctx := t.Context()
	shop := db.Client().Database("shop")
	run(t, shop, d{{Key: "createRole", Value: "a"}, {Key: "privileges", Value: a{priv("shop", "x", "find")}}, {Key: "roles", Value: a{"read"}}})
	run(t, shop, d{{Key: "createRole", Value: "b"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{"a"}}})

	info := run(t, shop, d{{Key: "rolesInfo", Value: "b"}})
	r := info.Lookup("roles", "0").Document()
	if r.Lookup("_id").StringValue() != "shop.b" || r.Lookup("role").StringValue() != "b" || r.Lookup("db").StringValue() != "shop" ||
		r.Lookup("isBuiltin").Boolean() {
		t.Errorf("rolesInfo b: %v", r)
	}
	if got := roleNames(t, r.Lookup("roles")); !slices.Equal(got, []string{"a@shop"}) {
		t.Errorf("roles: %v", got)
	}
	if got := roleNames(t, r.Lookup("inheritedRoles")); !slices.Equal(got, []string{"a@shop", "read@shop"}) {
		t.Errorf("inheritedRoles: %v, want every role granted directly or not", got)
	}
	for _, f := range []string{"privileges", "inheritedPrivileges"} {
		if _, err := r.LookupErr(f); err == nil {
			t.Errorf("%s without showPrivileges: %v", f, r)
		}
	}

	info = run(t, shop, d{{Key: "rolesInfo", Value: d{{Key: "role", Value: "b"}, {Key: "db", Value: "shop"}}}, {Key: "showPrivileges", Value: true}})
	r = info.Lookup("roles", "0").Document()
	if ps, _ := r.Lookup("privileges").Array().Values(); len(ps) != 0 {
		t.Errorf("b has no privileges of its own: %v", r)
	}
	if got := actionsOn(t, r.Lookup("inheritedPrivileges"), "shop", "x"); !slices.Equal(got, []string{"find"}) {
		t.Errorf("inheritedPrivileges on shop.x: %v", got)
	}
	if got := actionsOn(t, r.Lookup("inheritedPrivileges"), "shop", ""); !slices.Contains(got, "find") || slices.Contains(got, "insert") {
		t.Errorf("inheritedPrivileges through read: %v", got)
	}

	info = run(t, shop, d{{Key: "rolesInfo", Value: a{"a", d{{Key: "role", Value: "b"}, {Key: "db", Value: "shop"}}, "nope"}}})
	if got := roleNames(t, info.Lookup("roles")); !slices.Equal(got, []string{"a@shop", "b@shop"}) {
		t.Errorf("rolesInfo array (an unknown role is left out): %v", got)
	}

	info = run(t, shop, d{{Key: "rolesInfo", Value: 1}})
	if got := roleNames(t, info.Lookup("roles")); !slices.Equal(got, []string{"a@shop", "b@shop"}) {
		t.Errorf("rolesInfo: 1 lists the user-defined roles: %v", got)
	}
	info = run(t, shop, d{{Key: "rolesInfo", Value: 1}, {Key: "showBuiltinRoles", Value: true}})
	got := roleNames(t, info.Lookup("roles"))
	for _, want := range []string{"a@shop", "b@shop", "dbAdmin@shop", "dbOwner@shop", "read@shop", "readWrite@shop", "userAdmin@shop"} {
		if !slices.Contains(got, want) {
			t.Errorf("showBuiltinRoles lacks %s: %v", want, got)
		}
	}
	if slices.Contains(got, "root@shop") {
		t.Errorf("root exists only on admin: %v", got)
	}
	adminRoles := roleNames(t, run(t, db.Client().Database("admin"), d{{Key: "rolesInfo", Value: 1}, {Key: "showBuiltinRoles", Value: true}}).Lookup("roles"))
	for _, want := range []string{"root@admin", "readAnyDatabase@admin", "userAdminAnyDatabase@admin", "clusterAdmin@admin"} {
		if !slices.Contains(adminRoles, want) {
			t.Errorf("admin's built-in roles lack %s: %v", want, adminRoles)
		}
	}

	// A built-in role named: isBuiltin, no _id, its privileges.
	info = run(t, shop, d{{Key: "rolesInfo", Value: "read"}, {Key: "showPrivileges", Value: true}})
	r = info.Lookup("roles", "0").Document()
	if !r.Lookup("isBuiltin").Boolean() || r.Lookup("role").StringValue() != "read" {
		t.Errorf("rolesInfo read: %v", r)
	}
	if _, err := r.LookupErr("_id"); err == nil {
		t.Errorf("a built-in role has no _id: %v", r)
	}
	acts := actionsOn(t, r.Lookup("privileges"), "shop", "")
	if !slices.Contains(acts, "find") || !slices.Contains(acts, "listCollections") || slices.Contains(acts, "insert") {
		t.Errorf("read's privileges on shop: %v", acts)
	}
	if info := run(t, shop, d{{Key: "rolesInfo", Value: "root"}}); len(roleNames(t, info.Lookup("roles"))) != 0 {
		t.Errorf("root@shop is no role: %v", info)
	}

	// asUserFragment: the roles as one user document fragment.
	info = run(t, shop, d{{Key: "rolesInfo", Value: a{"b"}}, {Key: "showPrivileges", Value: "asUserFragment"}})
	frag := info.Lookup("userFragment").Document()
	if got := roleNames(t, frag.Lookup("roles")); !slices.Equal(got, []string{"b@shop"}) {
		t.Errorf("userFragment roles: %v", frag)
	}
	if got := roleNames(t, frag.Lookup("inheritedRoles")); !slices.Equal(got, []string{"a@shop", "b@shop", "read@shop"}) {
		t.Errorf("userFragment inheritedRoles: %v", got)
	}
	if got := actionsOn(t, frag.Lookup("inheritedPrivileges"), "shop", "x"); !slices.Equal(got, []string{"find"}) {
		t.Errorf("userFragment inheritedPrivileges: %v", frag)
	}
	wantCode(t, "asUserFragment for every role of a database", shop.RunCommand(ctx, d{{Key: "rolesInfo", Value: 1}, {Key: "showPrivileges", Value: "asUserFragment"}}).Err(), 20)

	// showAuthenticationRestrictions adds empty restriction arrays.
	info = run(t, shop, d{{Key: "rolesInfo", Value: "a"}, {Key: "showAuthenticationRestrictions", Value: true}})
	for _, f := range []string{"authenticationRestrictions", "inheritedAuthenticationRestrictions"} {
		if v, err := info.Lookup("roles", "0").Document().LookupErr(f); err != nil || v.Type != bson.TypeArray {
			t.Errorf("%s with showAuthenticationRestrictions: %v", f, info)
		}
	}
}

// TestRoleCommandErrors: the codes mongod 7.0 answers with.
func TestRoleCommandErrors(t *testing.T) {
	db := openAuth(t)
	ctx := t.Context()
	shop := db.Client().Database("shop")
	admin := db.Client().Database("admin")
	run(t, shop, d{{Key: "createRole", Value: "r"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}})
	for _, c := range []struct {
		what string
		db   *mongo.Database
		cmd  d
		code int32
	}{
		{"an existing role", shop, d{{Key: "createRole", Value: "r"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}}, 51002},
		{"a built-in role's name", shop, d{{Key: "createRole", Value: "read"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}}, 2},
		{"an unknown role to inherit", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{"nope"}}}, 31},
		{"a role of another database, outside admin", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{d{{Key: "role", Value: "read"}, {Key: "db", Value: "other"}}}}}, 49},
		{"a privilege on another database, outside admin", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{priv("other", "c", "find")}}, {Key: "roles", Value: a{}}}, 49},
		{"a cluster privilege, outside admin", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{d{{Key: "resource", Value: d{{Key: "cluster", Value: true}}}, {Key: "actions", Value: a{"serverStatus"}}}}}, {Key: "roles", Value: a{}}}, 49},
		{"a privilege on every database, outside admin", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{priv("", "", "find")}}, {Key: "roles", Value: a{}}}, 49},
		{"an unknown action", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{priv("shop", "", "fly")}}, {Key: "roles", Value: a{}}}, 2},
		{"no actions", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{priv("shop", "")}}, {Key: "roles", Value: a{}}}, 2},
		{"no privileges field", shop, d{{Key: "createRole", Value: "x"}, {Key: "roles", Value: a{}}}, 40414},
		{"no roles field", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{}}}, 40414},
		{"an unknown field", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}, {Key: "bogus", Value: 1}}, 40415},
		{"authentication restrictions", shop, d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}},
			{Key: "authenticationRestrictions", Value: a{d{{Key: "clientSource", Value: a{"127.0.0.1"}}}}}}, 238},
		{"a role in $external", db.Client().Database("$external"), d{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}}, 2},
		{"a role name that is not a string", shop, d{{Key: "createRole", Value: 1}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}}, 14},
		{"updateRole of an unknown role", shop, d{{Key: "updateRole", Value: "nope"}, {Key: "roles", Value: a{}}}, 31},
		{"updateRole with nothing to update", shop, d{{Key: "updateRole", Value: "r"}}, 2},
		{"dropRole of an unknown role", shop, d{{Key: "dropRole", Value: "nope"}}, 31},
		{"dropRole of a built-in role", shop, d{{Key: "dropRole", Value: "read"}}, 2},
		{"grantPrivilegesToRole on a built-in role", shop, d{{Key: "grantPrivilegesToRole", Value: "read"}, {Key: "privileges", Value: a{priv("shop", "", "insert")}}}, 2},
		{"grantPrivilegesToRole on an unknown role", shop, d{{Key: "grantPrivilegesToRole", Value: "nope"}, {Key: "privileges", Value: a{priv("shop", "", "insert")}}}, 31},
		{"grantPrivilegesToRole with no privileges", shop, d{{Key: "grantPrivilegesToRole", Value: "r"}, {Key: "privileges", Value: a{}}}, 2},
		{"grantRolesToRole on a built-in role", shop, d{{Key: "grantRolesToRole", Value: "read"}, {Key: "roles", Value: a{"r"}}}, 2},
		{"grantRolesToRole of an unknown role", shop, d{{Key: "grantRolesToRole", Value: "r"}, {Key: "roles", Value: a{"nope"}}}, 31},
		{"grantRolesToRole with no roles", shop, d{{Key: "grantRolesToRole", Value: "r"}, {Key: "roles", Value: a{}}}, 2},
		{"revokeRolesFromRole on a built-in role", shop, d{{Key: "revokeRolesFromRole", Value: "read"}, {Key: "roles", Value: a{"r"}}}, 2},
		{"revokePrivilegesFromRole on an unknown role", shop, d{{Key: "revokePrivilegesFromRole", Value: "nope"}, {Key: "privileges", Value: a{priv("shop", "", "find")}}}, 31},
		{"a role name that is neither a string nor a document", shop, d{{Key: "rolesInfo", Value: a{1}}}, 2},
		{"a {role, db} document without db", shop, d{{Key: "rolesInfo", Value: d{{Key: "role", Value: "r"}}}}, 2},
	} {
		wantCode(t, c.what, c.db.RunCommand(ctx, c.cmd).Err(), c.code)
	}

	// admin roles may hold privileges anywhere, and roles of any database.
	run(t, admin, d{{Key: "createRole", Value: "ops"}, {Key: "roles", Value: a{d{{Key: "role", Value: "r"}, {Key: "db", Value: "shop"}}}},
		{Key: "privileges", Value: a{
			d{{Key: "resource", Value: d{{Key: "cluster", Value: true}}}, {Key: "actions", Value: a{"serverStatus"}}},
			priv("", "", "find"), priv("other", "c", "insert"),
			// An action no Lode command checks is still one of mongod's.
			priv("shop", "", "enableSharding"),
		}}})
	// writeConcern and comment are accepted.
	run(t, shop, d{{Key: "dropRole", Value: "r"}, {Key: "writeConcern", Value: d{{Key: "w", Value: 1}}}, {Key: "comment", Value: "bye"}})
	info := run(t, admin, d{{Key: "rolesInfo", Value: "ops"}})
	if got := roleNames(t, info.Lookup("roles", "0", "roles")); len(got) != 0 {
		t.Errorf("dropRole removes the role from roles of other databases: %v", got)
	}

	// dropAllRolesFromDatabase: {n}, and the roles are gone.
	for _, n := range []string{"x", "y"} {
		run(t, shop, d{{Key: "createRole", Value: n}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}})
	}
	res := run(t, shop, d{{Key: "dropAllRolesFromDatabase", Value: 1}})
	if n, _ := res.Lookup("n").AsInt64OK(); n != 2 {
		t.Errorf("dropAllRolesFromDatabase: %v, want n: 2", res)
	}
	if got := roleNames(t, run(t, shop, d{{Key: "rolesInfo", Value: 1}}).Lookup("roles")); len(got) != 0 {
		t.Errorf("roles left after dropAllRolesFromDatabase: %v", got)
	}
}

// TestRoleCommandsAuthorization: who may run the role commands, as
// MongoDB documents their required access.
func TestRoleCommandsAuthorization(t *testing.T) {
	db := openAuth(t)
	ctx := t.Context()
	shop := db.Client().Database("shop")
	admin := db.Client().Database("admin")
	run(t, shop, d{{Key: "createRole", Value: "own"}, {Key: "privileges", Value: a{priv("shop", "c", "find")}}, {Key: "roles", Value: a{}}})
	run(t, shop, d{{Key: "createRole", Value: "other"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}})
	run(t, shop, d{{Key: "createUser", Value: "ua"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: a{"userAdmin"}}})
	run(t, shop, d{{Key: "createUser", Value: "plain"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: a{"own"}}})
	run(t, admin, d{{Key: "createUser", Value: "uaAny"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: a{"userAdminAnyDatabase"}}})

	// userAdmin of shop manages shop's roles...
	ua := connectAs(t, db.URI(), "ua", "pw", "shop", "").Database("shop")
	run(t, ua, d{{Key: "createRole", Value: "made"}, {Key: "privileges", Value: a{priv("shop", "c", "find")}}, {Key: "roles", Value: a{"read"}}})
	run(t, ua, d{{Key: "grantPrivilegesToRole", Value: "made"}, {Key: "privileges", Value: a{priv("shop", "c", "insert")}}})
	run(t, ua, d{{Key: "grantRolesToRole", Value: "made"}, {Key: "roles", Value: a{"own"}}})
	run(t, ua, d{{Key: "revokeRolesFromRole", Value: "made"}, {Key: "roles", Value: a{"own"}}})
	run(t, ua, d{{Key: "rolesInfo", Value: 1}})
	// ...but cannot grant what lies outside it, nor updateRole, which
	// needs revokeRole on every database.
	wantCode(t, "userAdmin granting a role of another database", ua.RunCommand(ctx, d{{Key: "createRole", Value: "z"}, {Key: "privileges", Value: a{}},
		{Key: "roles", Value: a{d{{Key: "role", Value: "read"}, {Key: "db", Value: "admin"}}}}}).Err(), 13)
	wantCode(t, "userAdmin updateRole", ua.RunCommand(ctx, d{{Key: "updateRole", Value: "made"}, {Key: "roles", Value: a{}}}).Err(), 13)
	wantCode(t, "userAdmin of shop creating a role on admin", ua.Client().Database("admin").RunCommand(ctx,
		d{{Key: "createRole", Value: "z"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}}).Err(), 13)
	run(t, ua, d{{Key: "dropRole", Value: "made"}})

	// userAdminAnyDatabase may updateRole.
	uaAny := connectAs(t, db.URI(), "uaAny", "pw", "admin", "").Database("shop")
	run(t, uaAny, d{{Key: "updateRole", Value: "other"}, {Key: "privileges", Value: a{priv("shop", "d", "find")}}})

	// A user without role privileges sees its own roles only.
	plain := connectAs(t, db.URI(), "plain", "pw", "shop", "").Database("shop")
	if got := roleNames(t, run(t, plain, d{{Key: "rolesInfo", Value: "own"}}).Lookup("roles")); !slices.Equal(got, []string{"own@shop"}) {
		t.Errorf("rolesInfo on one's own role: %v", got)
	}
	wantCode(t, "rolesInfo on a role one does not hold", plain.RunCommand(ctx, d{{Key: "rolesInfo", Value: "other"}}).Err(), 13)
	wantCode(t, "rolesInfo: 1 without viewRole", plain.RunCommand(ctx, d{{Key: "rolesInfo", Value: 1}}).Err(), 13)
	for _, cmd := range []d{
		{{Key: "createRole", Value: "z"}, {Key: "privileges", Value: a{}}, {Key: "roles", Value: a{}}},
		{{Key: "dropRole", Value: "other"}},
		{{Key: "dropAllRolesFromDatabase", Value: 1}},
		{{Key: "grantPrivilegesToRole", Value: "own"}, {Key: "privileges", Value: a{priv("shop", "c", "insert")}}},
		{{Key: "revokePrivilegesFromRole", Value: "own"}, {Key: "privileges", Value: a{priv("shop", "c", "find")}}},
		{{Key: "grantRolesToRole", Value: "own"}, {Key: "roles", Value: a{"readWrite"}}},
		{{Key: "revokeRolesFromRole", Value: "own"}, {Key: "roles", Value: a{"read"}}},
	} {
		wantCode(t, "without privileges: "+cmd[0].Key, plain.RunCommand(ctx, cmd).Err(), 13)
	}
}
