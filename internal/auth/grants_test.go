package auth

import "testing"

// TestGrantsAllowed: the actions of every privilege whose pattern covers
// the resource are pooled, as mongod's AuthorizationSession does: find
// from one privilege and insert from another together allow both.
func TestGrantsAllowed(t *testing.T) {
	g := &Grants{
		Privs: []Privilege{
			{dbPattern("shop"), Actions(ActFind)},
			{collPattern("shop", "orders"), Actions(ActInsert)},
			{collAnyDB("logs"), Actions(ActRemove)},
			{cluster, Actions(ActServerStatus)},
		},
		Roles: []RoleName{{"r", "shop"}},
	}
	for _, c := range []struct {
		name string
		r    Resource
		acts ActionSet
		want bool
	}{
		{"one privilege", CollResource("shop", "stock"), Actions(ActFind), true},
		{"pooled from two privileges", CollResource("shop", "orders"), Actions(ActFind, ActInsert), true},
		{"pooled from three", CollResource("shop", "logs"), Actions(ActFind, ActRemove), true},
		{"one missing", CollResource("shop", "stock"), Actions(ActFind, ActInsert), false},
		{"another database", CollResource("other", "orders"), Actions(ActFind), false},
		{"collection in any db", CollResource("other", "logs"), Actions(ActRemove), true},
		{"cluster", ClusterResource, Actions(ActServerStatus), true},
		{"cluster action elsewhere", DBResource("shop"), Actions(ActServerStatus), false},
		{"no actions needed", CollResource("x", "y"), ActionSet{}, false},
	} {
		if got := g.Allowed(c.r, c.acts); got != c.want {
			t.Errorf("%s: Allowed(%v, %v) = %v, want %v", c.name, c.r, c.acts.Names(), got, c.want)
		}
	}
	var none *Grants
	if none.Allowed(DBResource("shop"), Actions(ActFind)) || none.AnyOnDB("shop") || none.HasRole(RoleName{"r", "shop"}) {
		t.Error("nil grants allow something")
	}
	if !g.AnyOnDB("shop") || !g.AnyOnDB("other") /* logs in any db */ {
		t.Error("AnyOnDB misses a database the grants reach")
	}
	if !g.HasRole(RoleName{"r", "shop"}) || g.HasRole(RoleName{"r", "other"}) {
		t.Error("HasRole")
	}
}
