package recent

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/internal/plantest"
)

func openColl(t *testing.T, name string) *mongo.Collection {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Client().Database("recent").Collection(name)
}

type doc struct {
	cat int
	ts  any
}

// load inserts docs in batches and returns them.
func load(t *testing.T, coll *mongo.Collection, docs []doc) {
	t.Helper()
	ctx := context.Background()
	const batch = 5000
	for i := 0; i < len(docs); i += batch {
		end := min(i+batch, len(docs))
		b := make([]any, 0, end-i)
		for _, d := range docs[i:end] {
			b = append(b, bson.D{{Key: "cat", Value: d.cat}, {Key: "ts", Value: d.ts}})
		}
		if _, err := coll.InsertMany(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
}

func tsKey(t *testing.T, v bson.RawValue) float64 {
	switch v.Type {
	case bson.TypeDateTime:
		return float64(v.DateTime())
	case bson.TypeInt64:
		return float64(v.Int64())
	case bson.TypeInt32:
		return float64(v.Int32())
	case bson.TypeDouble:
		return v.Double()
	}
	t.Fatalf("ts of type %s", v.Type)
	return 0
}

// checkRecent runs FindRecent and checks the seed's contract against the
// generated data: min <= r <= max and no omitted matching document is newer
// than a returned one. With strict, every omitted document must be strictly
// older than every returned one: that holds whenever timestamps are
// distinct, since only ties at the threshold use the limit fallback.
func checkRecent(t *testing.T, coll *mongo.Collection, docs []doc, cats []int, lo, hi int64, strict bool) {
	t.Helper()
	ctx := context.Background()
	in := map[int]bool{}
	anyCats := make([]any, len(cats))
	for i, c := range cats {
		in[c] = true
		anyCats[i] = c
	}
	cur, err := FindRecent(ctx, coll, anyCats, lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.Raw
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	r := int64(len(got))
	matching := 0
	for _, d := range docs {
		if in[d.cat] {
			matching++
		}
	}
	if r < lo && r != int64(matching) || r > hi {
		t.Fatalf("FindRecent(%v, %d, %d) returned %d documents (%d match)", cats, lo, hi, r, matching)
	}
	oldestReturned := 0.0
	seen := map[bson.ObjectID]bool{}
	for i, g := range got {
		c := int(g.Lookup("cat").AsInt64())
		if !in[c] {
			t.Fatalf("returned document of category %d", c)
		}
		k := tsKey(t, g.Lookup("ts"))
		if i == 0 || k < oldestReturned {
			oldestReturned = k
		}
		seen[g.Lookup("_id").ObjectID()] = true
	}
	// Every omitted matching document is no newer than the oldest returned.
	all, err := coll.Find(ctx, bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: anyCats}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close(ctx)
	n := 0
	for all.Next(ctx) {
		n++
		id := all.Current.Lookup("_id").ObjectID()
		if seen[id] {
			continue
		}
		k := tsKey(t, all.Current.Lookup("ts"))
		if k > oldestReturned {
			t.Fatalf("omitted document %v with ts %v is newer than returned ts %v", id, k, oldestReturned)
		}
		if strict && k >= oldestReturned {
			t.Fatalf("omitted document %v with ts %v is not strictly older than the oldest returned ts %v", id, k, oldestReturned)
		}
	}
	if n != matching {
		t.Fatalf("collection holds %d matching documents, generated %d", n, matching)
	}
}

func TestFindRecentLarge(t *testing.T) {
	n := 200_000
	if testing.Short() || os.Getenv("LODE_RECENT_N") == "small" {
		n = 50_000
	}
	coll := openColl(t, "docs")
	ctx := context.Background()
	if err := EnsureIndexes(ctx, coll); err != nil {
		t.Fatalf("EnsureIndexes: %v", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Real timestamps: dates with irregular gaps (1-2000 ms), all distinct
	// so that the strict order of omitted and returned documents can be
	// checked (ties are TestFindRecentCounterAndTies's subject).
	docs := make([]doc, n)
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for i := range docs {
		at += 1 + rng.Int64N(2000)
		docs[i] = doc{cat: rng.IntN(100), ts: bson.DateTime(at)}
	}
	start := time.Now()
	load(t, coll, docs)
	t.Logf("inserted %d documents in %v", n, time.Since(start))
	for _, tc := range []struct {
		cats   []int
		lo, hi int64
	}{
		{[]int{1, 55, 88}, 100, 110},
		{[]int{1, 55, 88}, 1000, 1100},
		{[]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 10000, 11000},
		{[]int{42}, 1, 1},
		{[]int{7, 8}, 5000, 100000}, // more than exist: all returned
	} {
		start := time.Now()
		checkRecent(t, coll, docs, tc.cats, tc.lo, tc.hi, true)
		t.Logf("cats %v [%d,%d]: %v", tc.cats, tc.lo, tc.hi, time.Since(start))
	}
}

func TestFindRecentCounterAndTies(t *testing.T) {
	ctx := context.Background()
	coll := openColl(t, "small")
	if err := EnsureIndexes(ctx, coll); err != nil {
		t.Fatalf("EnsureIndexes: %v", err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var docs []doc
	// Dense counter like the seed, then a burst of 300 documents sharing one
	// ts, then doubles.
	for i := 0; i < 2000; i++ {
		docs = append(docs, doc{cat: rng.IntN(5), ts: int64(i)})
	}
	for i := 0; i < 300; i++ {
		docs = append(docs, doc{cat: i % 5, ts: int64(5000)})
	}
	load(t, coll, docs)
	tests := []struct {
		name   string
		cats   []int
		lo, hi int64
		strict bool
	}{
		{"dense", []int{0, 1}, 5, 5, false},                                         // the newest 120 tie at 5000: fallback
		{"exact window on burst forces cut", []int{0, 1, 2, 3, 4}, 100, 120, false}, // the documented tie fallback
		{"past burst", []int{0, 1, 2}, 400, 420, true},
		{"empty categories", []int{99}, 1, 10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkRecent(t, coll, docs, tc.cats, tc.lo, tc.hi, tc.strict) })
	}
	dcoll := openColl(t, "doubles")
	if err := EnsureIndexes(ctx, dcoll); err != nil {
		t.Fatal(err)
	}
	docs = docs[:0]
	x := 0.0
	for i := 0; i < 3000; i++ {
		x += rng.Float64()
		docs = append(docs, doc{cat: rng.IntN(3), ts: x})
	}
	load(t, dcoll, docs)
	checkRecent(t, dcoll, docs, []int{0, 2}, 250, 260, true)
}

func TestLatest(t *testing.T) {
	ctx := context.Background()
	coll := openColl(t, "latest")
	if err := EnsureIndexes(ctx, coll); err != nil {
		t.Fatalf("EnsureIndexes: %v", err)
	}
	var docs []doc
	for i := 0; i < 500; i++ {
		docs = append(docs, doc{cat: i % 7, ts: int64(i)})
	}
	load(t, coll, docs)
	got, err := Latest(ctx, coll, "cat", []any{2, 5}, 4)
	if err != nil {
		t.Fatal(err)
	}
	// cat 2: i%7==2 -> 499? 499%7=2 yes; 498%7=1; 495%7=5; 492%7=2; 488%7=5.
	want := []int64{499, 495, 492, 488}
	if len(got) != len(want) {
		t.Fatalf("got %d docs", len(got))
	}
	for i, g := range got {
		if ts := g.Lookup("ts").Int64(); ts != want[i] {
			t.Fatalf("doc %d: ts %d, want %d", i, ts, want[i])
		}
	}
	// The server merges the two categories' index ranges (SORT_MERGE)
	// rather than sorting: no SORT stage, and only limit-many keys read per
	// category at most.
	reply := plantest.Explain(t, coll.Database(), bson.D{
		{Key: "find", Value: coll.Name()},
		{Key: "filter", Value: bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{2, 5}}}}}},
		{Key: "sort", Value: bson.D{{Key: "ts", Value: -1}}},
		{Key: "limit", Value: 4},
	})
	stages := plantest.Stages(plantest.WinningPlan(t, reply))
	if !plantest.Has(stages, "SORT_MERGE") || plantest.Has(stages, "SORT") || plantest.Has(stages, "COLLSCAN") {
		t.Fatalf("Latest plan stages %v, want SORT_MERGE and no SORT or COLLSCAN", stages)
	}
	if n := plantest.ExecInt(t, reply, "totalKeysExamined"); n > 2*4+2 {
		t.Fatalf("Latest examined %d keys for limit 4 over 2 categories", n)
	}
}

// TestSearchCountsAreCovered: the counts Search runs are answered from
// the {cat: 1, ts: -1} index alone (no document is read), and the final
// find of FindRecent scans that index.
func TestSearchCountsAreCovered(t *testing.T) {
	ctx := context.Background()
	coll := openColl(t, "covered")
	if err := EnsureIndexes(ctx, coll); err != nil {
		t.Fatal(err)
	}
	var docs []doc
	for i := 0; i < 3000; i++ {
		docs = append(docs, doc{cat: i % 10, ts: int64(i)})
	}
	load(t, coll, docs)
	cats := []any{1, 4, 7}
	res, err := Search(ctx, coll, cats, 50, 60)
	if err != nil {
		t.Fatal(err)
	}
	if res.Count < 50 || res.Count > 60 || res.Counts < 2 {
		t.Fatalf("Search = %+v", res)
	}
	for _, filter := range []bson.D{
		{{Key: CatField, Value: bson.D{{Key: "$in", Value: cats}}}}, // the total count of bounds
		res.Filter, // the final threshold count
	} {
		reply := plantest.Explain(t, coll.Database(), bson.D{
			{Key: "count", Value: coll.Name()}, {Key: "query", Value: filter}, {Key: "hint", Value: IndexKeys},
		})
		plan := plantest.WinningPlan(t, reply)
		stages := plantest.Stages(plan)
		if plantest.Has(stages, "FETCH") || plantest.Has(stages, "COLLSCAN") {
			t.Fatalf("count %v plan %v reads documents", filter, stages)
		}
		if ix := plantest.IndexNames(plan); !plantest.Has(ix, "cat_1_ts_-1") {
			t.Fatalf("count %v uses indexes %v, want cat_1_ts_-1", filter, ix)
		}
		if n := plantest.ExecInt(t, reply, "totalDocsExamined"); n != 0 {
			t.Fatalf("count %v examined %d documents, want 0", filter, n)
		}
	}
	reply := plantest.Explain(t, coll.Database(), bson.D{
		{Key: "find", Value: coll.Name()}, {Key: "filter", Value: res.Filter}, {Key: "hint", Value: IndexKeys},
	})
	plan := plantest.WinningPlan(t, reply)
	if ix := plantest.IndexNames(plan); !plantest.Has(ix, "cat_1_ts_-1") {
		t.Fatalf("FindRecent's find uses indexes %v, want cat_1_ts_-1", ix)
	}
	if n := plantest.ExecInt(t, reply, "totalDocsExamined"); n != res.Count {
		t.Fatalf("FindRecent's find examined %d documents, want exactly the %d it returns", n, res.Count)
	}
}
