package auth

import "testing"

// TestPatternMatches: mongod's resource patterns. A database pattern
// covers the database and its collections but not system collections;
// the "any normal" pattern neither system collections nor local and
// config; only anyResource covers everything.
func TestPatternMatches(t *testing.T) {
	var (
		anyRes   = Pattern{Kind: PatternAnyResource}
		clusterP = Pattern{Kind: PatternCluster}
		shopDB   = Pattern{Kind: PatternDB, DB: "shop"}
		orders   = Pattern{Kind: PatternCollection, DB: "shop", Coll: "orders"}
		ordersAn = Pattern{Kind: PatternCollAnyDB, Coll: "orders"}
		normal   = Pattern{Kind: PatternAnyNormal}
		sysJS    = Pattern{Kind: PatternCollection, DB: "shop", Coll: "system.js"}
	)
	for _, c := range []struct {
		name string
		p    Pattern
		r    Resource
		want bool
	}{
		{"anyResource: cluster", anyRes, ClusterResource, true},
		{"anyResource: system collection", anyRes, CollResource("admin", "system.users"), true},
		{"anyResource: local", anyRes, CollResource("local", "oplog.rs"), true},
		{"anyResource: every normal resource", anyRes, AnyNormalResource, true},
		{"cluster: cluster", clusterP, ClusterResource, true},
		{"cluster: a database", clusterP, DBResource("admin"), false},
		{"cluster: a collection", clusterP, CollResource("shop", "orders"), false},
		{"db: the database", shopDB, DBResource("shop"), true},
		{"db: a collection", shopDB, CollResource("shop", "orders"), true},
		{"db: a system collection", shopDB, CollResource("shop", "system.js"), false},
		{"db: another database", shopDB, DBResource("shopx"), false},
		{"db: a collection of another database", shopDB, CollResource("other", "orders"), false},
		{"db: the cluster", shopDB, ClusterResource, false},
		{"db: every normal resource", shopDB, AnyNormalResource, false},
		{"collection: itself", orders, CollResource("shop", "orders"), true},
		{"collection: another collection", orders, CollResource("shop", "stock"), false},
		{"collection: its database", orders, DBResource("shop"), false},
		{"collection: same name elsewhere", orders, CollResource("other", "orders"), false},
		{"system collection pattern: itself", sysJS, CollResource("shop", "system.js"), true},
		{"collection in any db: shop", ordersAn, CollResource("shop", "orders"), true},
		{"collection in any db: other", ordersAn, CollResource("other", "orders"), true},
		{"collection in any db: another name", ordersAn, CollResource("shop", "stock"), false},
		{"collection in any db: a database", ordersAn, DBResource("shop"), false},
		{"any normal: a database", normal, DBResource("shop"), true},
		{"any normal: admin", normal, DBResource("admin"), true},
		{"any normal: a collection", normal, CollResource("shop", "orders"), true},
		{"any normal: a system collection", normal, CollResource("shop", "system.js"), false},
		{"any normal: admin.system.users", normal, CollResource("admin", "system.users"), false},
		{"any normal: local", normal, DBResource("local"), false},
		{"any normal: a local collection", normal, CollResource("local", "startup_log"), false},
		{"any normal: config", normal, CollResource("config", "system.sessions"), false},
		{"any normal: a config collection", normal, CollResource("config", "transactions"), false},
		{"any normal: the cluster", normal, ClusterResource, false},
		{"any normal: every normal resource", normal, AnyNormalResource, true},
		{"collection: every normal resource", orders, AnyNormalResource, false},
	} {
		if got := c.p.Matches(c.r); got != c.want {
			t.Errorf("%s: %+v matches %v = %v, want %v", c.name, c.p, c.r, got, c.want)
		}
	}
}

func TestResourceString(t *testing.T) {
	for r, want := range map[Resource]string{
		ClusterResource:           "cluster",
		DBResource("shop"):        "shop",
		CollResource("shop", "o"): "shop.o",
		AnyNormalResource:         "<all normal resources>",
	} {
		if got := r.String(); got != want {
			t.Errorf("%+v: %q, want %q", r, got, want)
		}
	}
}
