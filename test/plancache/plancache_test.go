// Package plancache_test checks the plan cache's user handles as mongod
// 7.0 documents them: $planCacheStats, planCacheClear, explain's
// queryHash and planCacheKey, and the index filter commands.
package plancache_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func setup(t *testing.T) (*mongo.Database, *mongo.Collection) {
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	testenv.InsertBatches(t, coll, 2000, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 10}, {Key: "b", Value: i % 100}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}})
	testenv.CreateIndex(t, coll, bson.D{{Key: "b", Value: 1}})
	return db, coll
}

func ids(t *testing.T, coll *mongo.Collection, filter bson.D) string {
	t.Helper()
	cur, err := coll.Find(context.Background(), filter, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.M
	if err := cur.All(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(out)
}

func stats(t *testing.T, coll *mongo.Collection) []bson.Raw {
	t.Helper()
	cur, err := coll.Aggregate(context.Background(), bson.A{bson.D{{Key: "$planCacheStats", Value: bson.D{}}}})
	if err != nil {
		t.Fatal(err)
	}
	var out []bson.Raw
	for cur.Next(context.Background()) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var hex8 = regexp.MustCompile(`^[0-9A-F]{8}$`)

// A shape's entry is inactive after its first run and active after the
// second; its queryHash and planCacheKey are explain's; results are the
// same with the cached plan; createIndex and planCacheClear empty it.
func TestPlanCacheEntries(t *testing.T) {
	db, coll := setup(t)
	f := func(a, b int) bson.D { return bson.D{{Key: "a", Value: a}, {Key: "b", Value: b}} }
	want := ids(t, coll, f(3, 13))
	st := stats(t, coll)
	if len(st) != 1 || st[0].Lookup("isActive").Boolean() {
		t.Fatalf("after one run: %v", st)
	}
	for _, k := range []string{"queryHash", "planCacheKey"} {
		if s := st[0].Lookup(k).StringValue(); !hex8.MatchString(s) {
			t.Errorf("%s %q", k, s)
		}
	}
	if q := st[0].Lookup("createdFromQuery", "query").Document(); q.Lookup("a").Int32() != 3 {
		t.Errorf("createdFromQuery %v", st[0])
	}
	if st[0].Lookup("works").Int64() < 1 || st[0].Lookup("cachedPlan", "stage").StringValue() == "" {
		t.Errorf("entry %v", st[0])
	}
	ids(t, coll, f(4, 14))
	st = stats(t, coll)
	if len(st) != 1 || !st[0].Lookup("isActive").Boolean() {
		t.Fatalf("after two runs: %v", st)
	}
	if got := ids(t, coll, f(3, 13)); got != want {
		t.Fatalf("with the cached plan: %s, want %s", got, want)
	}
	ex := testenv.Explain(t, db, bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: f(5, 15)},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "_id", Value: 1}}}}, "queryPlanner")
	for _, k := range []string{"queryHash", "planCacheKey"} {
		if got, want := ex.Lookup("queryPlanner", k).StringValue(), st[0].Lookup(k).StringValue(); got != want {
			t.Errorf("explain %s %q, $planCacheStats %q", k, got, want)
		}
	}

	// Another shape; planCacheClear with a query removes its entry only.
	ids(t, coll, bson.D{{Key: "a", Value: 3}, {Key: "b", Value: bson.D{{Key: "$gt", Value: 13}}}})
	if st = stats(t, coll); len(st) != 2 {
		t.Fatalf("two shapes: %v", st)
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "planCacheClear", Value: "c"}, {Key: "query", Value: f(0, 0)},
		{Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "projection", Value: bson.D{{Key: "_id", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if st = stats(t, coll); len(st) != 1 || st[0].Lookup("createdFromQuery", "query", "b").Type != bson.TypeEmbeddedDocument {
		t.Fatalf("after planCacheClear of one shape: %v", st)
	}
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "planCacheClear", Value: "c"}}); err != nil {
		t.Fatal(err)
	}
	if st = stats(t, coll); len(st) != 0 {
		t.Fatalf("after planCacheClear: %v", st)
	}

	// An index change empties the cache.
	ids(t, coll, f(3, 13))
	testenv.CreateIndex(t, coll, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}})
	if st = stats(t, coll); len(st) != 0 {
		t.Fatalf("after createIndex: %v", st)
	}
	if got := ids(t, coll, f(3, 13)); got != want {
		t.Fatalf("after createIndex: %s, want %s", got, want)
	}
	if err := coll.Drop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st = stats(t, coll); len(st) != 0 {
		t.Fatalf("after drop: %v", st)
	}
}

// $planCacheStats must come first; planCacheClear and planCacheSetFilter
// validate their arguments.
func TestPlanCacheCommandErrors(t *testing.T) {
	db, coll := setup(t)
	_, err := coll.Aggregate(context.Background(), bson.A{bson.D{{Key: "$match", Value: bson.D{}}}, bson.D{{Key: "$planCacheStats", Value: bson.D{}}}})
	if err == nil {
		t.Error("$planCacheStats after $match succeeded")
	}
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheSetFilter", Value: "c"}, {Key: "indexes", Value: bson.A{"a_1"}}})
	testenv.WantCode(t, "planCacheSetFilter without query", err, 2)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheSetFilter", Value: "missing"}, {Key: "query", Value: bson.D{}}, {Key: "indexes", Value: bson.A{"a_1"}}})
	testenv.WantCode(t, "planCacheSetFilter of a missing collection", err, 2)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheClear", Value: "c"}, {Key: "query", Value: 1}})
	testenv.WantCode(t, "query: 1", err, 14)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheClear", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "a", Value: 1}}}})
	testenv.WantCode(t, "sort without query", err, 2)
	// Entries are not selected by collation: a non-simple one is refused
	// rather than ignored.
	fr := bson.D{{Key: "locale", Value: "fr"}}
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheClear", Value: "c"}, {Key: "query", Value: bson.D{}}, {Key: "collation", Value: fr}})
	testenv.WantCode(t, "planCacheClear with a collation", err, 238)
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "planCacheSetFilter", Value: "c"}, {Key: "query", Value: bson.D{}}, {Key: "collation", Value: fr}, {Key: "indexes", Value: bson.A{"a_1"}}})
	testenv.WantCode(t, "planCacheSetFilter with a collation", err, 238)
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "planCacheClear", Value: "missing"}}); err != nil {
		t.Errorf("planCacheClear of a missing collection: %v", err)
	}
}

// The profiler (as the slow-query log) names the queryHash and
// planCacheKey of a query that went through the plan cache.
func TestPlanCacheKeysProfiled(t *testing.T) {
	db, coll := setup(t)
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "profile", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	ids(t, coll, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 11}})
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "profile", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	st := stats(t, coll)
	if len(st) != 1 {
		t.Fatalf("entries %v", st)
	}
	var prof bson.Raw
	err := db.Collection("system.profile").FindOne(context.Background(), bson.D{{Key: "op", Value: "query"}, {Key: "ns", Value: "test.c"}}).Decode(&prof)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"queryHash", "planCacheKey"} {
		if got, want := prof.Lookup(k).StringValue(), st[0].Lookup(k).StringValue(); got != want {
			t.Errorf("profiled %s %q, $planCacheStats %q (%v)", k, got, want, prof)
		}
	}
}
