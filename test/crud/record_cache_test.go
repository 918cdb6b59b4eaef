package crud_test

import (
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/storage"
	"github.com/lodedb/lode/test/testenv"
)

// cacheQuiet is a little longer than storage waits before it caches a
// collection left unwritten.
const cacheQuiet = storage.DefaultRecordCacheQuiet + 100*time.Millisecond

// TestRecentQueryThroughRecordCache runs the recent-n query (SORT_MERGE >
// FETCH) on a collection left unwritten long enough for storage to cache
// its records, then updates, deletes and inserts some of the documents it
// returns: every run returns what the collection holds at that moment,
// whether FETCH read Pebble or the cache (internal/storage/recordcache.go).
func TestRecentQueryThroughRecordCache(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := db.Collection("recent")
	type doc struct {
		ID  int32  `bson:"_id"`
		Cat int32  `bson:"cat"`
		TS  int32  `bson:"ts"`
		V   string `bson:"v"`
	}
	model := map[int32]doc{}
	const n = 3000
	testenv.InsertBatches(t, coll, n, func(i int) any {
		d := doc{ID: int32(i), Cat: int32(i % 10), TS: int32(i), V: "v1"}
		model[d.ID] = d
		return d
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}})
	cats := []int32{1, 3, 5}
	want := func(limit int) []doc {
		var out []doc
		for _, d := range model {
			if slices.Contains(cats, d.Cat) {
				out = append(out, d)
			}
		}
		slices.SortFunc(out, func(a, b doc) int { return int(b.TS - a.TS) })
		return out[:min(limit, len(out))]
	}
	check := func(what string, batch int32) {
		t.Helper()
		opts := options.Find().SetSort(bson.D{{Key: "ts", Value: -1}}).SetLimit(700)
		if batch > 0 {
			opts.SetBatchSize(batch)
		}
		cur, err := coll.Find(c, bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: cats}}}}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []doc
		if err := cur.All(c, &got); err != nil {
			t.Fatal(err)
		}
		if w := want(700); !slices.Equal(got, w) {
			t.Fatalf("%s: %d documents, want %d; first difference at %d", what, len(got), len(w), firstDiff(got, w))
		}
	}
	check("before caching", 0)
	time.Sleep(cacheQuiet) // storage caches a collection left unwritten
	check("first run", 0)
	check("second run (cached)", 101)

	update := func() {
		t.Helper()
		for id := int32(2990); id >= 2000; id -= 7 {
			if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "v2"}}}}); err != nil {
				t.Fatal(err)
			}
			d := model[id]
			d.V = "v2"
			model[id] = d
		}
		for id := int32(2995); id >= 2000; id -= 11 {
			if _, err := coll.DeleteOne(c, bson.D{{Key: "_id", Value: id}}); err != nil {
				t.Fatal(err)
			}
			delete(model, id)
		}
		var docs []any
		for id := int32(n); id < n+20; id++ {
			d := doc{ID: id, Cat: 1, TS: id, V: "new"}
			model[id] = d
			docs = append(docs, d)
		}
		if _, err := coll.InsertMany(c, docs); err != nil {
			t.Fatal(err)
		}
	}
	update()
	check("right after the writes", 50)
	time.Sleep(cacheQuiet)
	check("after the writes, filling", 50)
	check("after the writes, cached", 0)

	// A cursor opened on the cached version and drained after a write
	// returns documents as its own reads see them: compared with a cursor
	// run without the write in between, only the written documents differ.
	cur, err := coll.Find(c, bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: cats}}}},
		options.Find().SetSort(bson.D{{Key: "ts", Value: -1}}).SetLimit(700).SetBatchSize(10))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(c)
	if !cur.Next(c) {
		t.Fatal(cur.Err())
	}
	if _, err := coll.UpdateMany(c, bson.D{{Key: "cat", Value: 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: "v3"}}}}); err != nil {
		t.Fatal(err)
	}
	seen := 1
	for cur.Next(c) {
		var d doc
		if err := cur.Decode(&d); err != nil {
			t.Fatal(err)
		}
		m, ok := model[d.ID]
		if !ok || m.Cat != d.Cat || m.TS != d.TS || (d.V != m.V && !(d.Cat == 3 && d.V == "v3")) {
			t.Fatalf("cursor returned %+v, the collection held %+v (%v)", d, m, ok)
		}
		seen++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != 700 {
		t.Fatalf("cursor returned %d documents, want 700", seen)
	}
	for id, d := range model {
		if d.Cat == 3 {
			d.V = "v3"
			model[id] = d
		}
	}
	check("after the cursor's write", 0)
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
