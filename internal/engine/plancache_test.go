package engine

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// twoIndexColl makes db.c with indexes on a and b, so that {a, b}
// equalities have two candidate plans.
func twoIndexColl(t testing.TB, e *Engine, n int) {
	docs := make([]bson.D, 0, n)
	for i := 0; i < n; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 10}, {Key: "b", Value: i % 100}})
	}
	for len(docs) > 0 {
		k := min(len(docs), 1000)
		insert(t, e, "db", "c", docs[:k]...)
		docs = docs[k:]
	}
	for _, f := range []string{"a", "b"} {
		if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: f, Value: 1}})}); err != nil {
			t.Fatal(err)
		}
	}
}

func cacheOf(e *Engine) *planCache { return &e.cat.Load().lookup("db", "c").state.plans }

// The first trial of a shape leaves an inactive entry, the second
// activates it, the third runs the cached plan alone; values do not
// matter, results do not change, and an index change empties the cache.
func TestPlanCacheLifecycle(t *testing.T) {
	e := openTest(t, t.TempDir())
	twoIndexColl(t, e, 2000)
	spec := func(a, b int) FindSpec {
		return FindSpec{Filter: D(t, bson.D{{Key: "a", Value: a}, {Key: "b", Value: b}})}
	}
	want := jsonOf(findAll(t, e, "db", "c", spec(3, 13)))
	if st, _ := e.PlanCacheStats("db", "c"); len(st) != 1 || bson.Raw(st[0]).Lookup("isActive").Boolean() {
		t.Fatalf("after one run: %v", st)
	}
	findAll(t, e, "db", "c", spec(4, 14))
	if st, _ := e.PlanCacheStats("db", "c"); len(st) != 1 || !bson.Raw(st[0]).Lookup("isActive").Boolean() {
		t.Fatalf("after two runs: %v", st)
	}
	if got := jsonOf(findAll(t, e, "db", "c", spec(3, 13))); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("cached plan: %v, want %v", got, want)
	}
	if h := cacheOf(e).hits.Load(); h != 1 {
		t.Fatalf("hits %d, want 1", h)
	}
	if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.PlanCacheStats("db", "c"); len(st) != 0 {
		t.Fatalf("after createIndex: %v", st)
	}
	if got := jsonOf(findAll(t, e, "db", "c", spec(3, 13))); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after createIndex: %v, want %v", got, want)
	}
	if err := e.PlanCacheClear("db", "c", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.PlanCacheStats("db", "c"); len(st) != 0 {
		t.Fatalf("after planCacheClear: %v", st)
	}
}

// An active entry whose plan needs more than ten times its works is
// evicted and the trial replans.
func TestPlanCacheReplans(t *testing.T) {
	e := openTest(t, t.TempDir())
	twoIndexColl(t, e, 2000)
	// b: 13 matches 20 documents, a: 3 matches 200: {b} wins.
	few := FindSpec{Filter: D(t, bson.D{{Key: "a", Value: 3}, {Key: "b", Value: 13}})}
	findAll(t, e, "db", "c", few)
	findAll(t, e, "db", "c", few)
	// b: 1000 (no document) with a: 3: the cached {b} plan ends at once;
	// then a shape whose cached plan reads far more than it recorded.
	var docs []bson.D
	for i := 0; i < 3000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: 10000 + i}, {Key: "a", Value: 1000}, {Key: "b", Value: 77}})
	}
	insert(t, e, "db", "c", docs...)
	many := FindSpec{Filter: D(t, bson.D{{Key: "a", Value: 3}, {Key: "b", Value: 77}})}
	if got := findAll(t, e, "db", "c", many); len(got) != 0 {
		t.Fatalf("got %d", len(got))
	}
	if h := cacheOf(e).hits.Load(); h != 0 {
		t.Fatalf("hits %d: the cached plan should have been replanned", h)
	}
	if st, _ := e.PlanCacheStats("db", "c"); len(st) != 1 || bson.Raw(st[0]).Lookup("isActive").Boolean() {
		t.Fatalf("after the replan: %v", st)
	}
}

// Readers of one shape share the cache while indexes change: every
// result stays the collection scan's. It also catches a read planned with
// an index whose drop committed before the read's snapshot (snapshotOf):
// that read found nothing, about once in ten runs.
func TestPlanCacheConcurrent(t *testing.T) {
	e := openTest(t, t.TempDir())
	twoIndexColl(t, e, 2000)
	want := make([]string, 10)
	for a := range want {
		want[a] = fmt.Sprint(jsonOf(findAll(t, e, "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "a", Value: a}, {Key: "b", Value: a + 10}}), Hint: val(t, bson.D{{Key: "$natural", Value: 1}})})))
	}
	done := make(chan error, 4)
	for w := 0; w < 4; w++ {
		go func(w int) {
			for i := 0; i < 200; i++ {
				a := (i + w) % 10
				it, err := e.Find(context.Background(), "db", "c", FindSpec{Filter: D(t, bson.D{{Key: "a", Value: a}, {Key: "b", Value: a + 10}})})
				if err != nil {
					done <- err
					return
				}
				var got []bsoncore.Document
				for {
					d, err := it.Next()
					if err != nil {
						done <- err
						return
					}
					if d == nil {
						break
					}
					got = append(got, d)
				}
				it.Close()
				if s := fmt.Sprint(jsonOf(got)); s != want[a] {
					done <- fmt.Errorf("a=%d: %s, want %s", a, s, want[a])
					return
				}
			}
			done <- nil
		}(w)
	}
	for i := 0; i < 3; i++ {
		if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "b", Value: 1}, {Key: "a", Value: 1}}), Name: "ba"}); err != nil {
			t.Fatal(err)
		}
		if err := e.DropIndex("db", "c", "ba"); err != nil {
			t.Fatal(err)
		}
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if h := cacheOf(e).hits.Load(); h == 0 {
		t.Log("no cache hit (index changes kept emptying it)")
	}
}
