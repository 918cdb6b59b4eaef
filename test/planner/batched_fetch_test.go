package planner_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// fetchDoc is one document of the batched-FETCH tests.
type fetchDoc struct {
	ID  int32 `bson:"_id"`
	Cat int32 `bson:"cat"`
	TS  int32 `bson:"ts"`
	X   int32 `bson:"x"`
}

// loadFetchDocs inserts n documents {_id: i, cat: i%10, ts: a permutation
// of 0..n-1, x: i%7}, so an index on {cat, ts} orders record ids
// randomly, and builds {cat: 1, ts: -1}.
func loadFetchDocs(t *testing.T, coll *mongo.Collection, n int) []fetchDoc {
	t.Helper()
	perm := rand.New(rand.NewPCG(12, 1)).Perm(n)
	docs := make([]fetchDoc, n)
	batch := make([]any, 0, n)
	for i := range docs {
		docs[i] = fetchDoc{ID: int32(i), Cat: int32(i % 10), TS: int32(perm[i]), X: int32(i % 7)}
		batch = append(batch, docs[i])
	}
	if _, err := coll.InsertMany(testenv.Ctx(t), batch); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{Keys: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}}); err != nil {
		t.Fatal(err)
	}
	return docs
}

// expect returns the documents matching keep, ordered by ts (descending
// when desc), at most limit of them (0: all).
func expect(docs []fetchDoc, keep func(fetchDoc) bool, desc bool, limit int) []fetchDoc {
	var out []fetchDoc
	for _, d := range docs {
		if keep(d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b fetchDoc) int {
		if desc {
			return int(b.TS - a.TS)
		}
		return int(a.TS - b.TS)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

func findAll(t *testing.T, coll *mongo.Collection, filter bson.D, opts *options.FindOptionsBuilder) []fetchDoc {
	t.Helper()
	cur, err := coll.Find(testenv.Ctx(t), filter, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []fetchDoc
	if err := cur.All(testenv.Ctx(t), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameDocs(t *testing.T, what string, got, want []fetchDoc) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the test expects no documents", what)
	}
	if !slices.Equal(got, want) {
		n := min(len(got), len(want))
		for i := 0; i < n; i++ {
			if got[i] != want[i] {
				t.Fatalf("%s: %d documents, want %d; first difference at %d: %+v, want %+v", what, len(got), len(want), i, got[i], want[i])
			}
		}
		t.Fatalf("%s: %d documents, want %d", what, len(got), len(want))
	}
}

// TestBatchedFetchResults checks that plans whose FETCH reads records in
// batches return what the query means, in order: SORT_MERGE with and
// without limits, both scan directions, residual filters, and a cursor
// whose documents are deleted between its batches.
func TestBatchedFetchResults(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	docs := loadFetchDocs(t, coll, 3000)
	cats := bson.A{1, 3, 5, 8}
	inCats := func(d fetchDoc) bool { return d.Cat == 1 || d.Cat == 3 || d.Cat == 5 || d.Cat == 8 }
	in := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: cats}}}}
	desc, asc := bson.D{{Key: "ts", Value: -1}}, bson.D{{Key: "ts", Value: 1}}
	for _, limit := range []int{1, 2, 5, 100, 700, 0} {
		got := findAll(t, coll, in, options.Find().SetSort(desc).SetLimit(int64(limit)))
		sameDocs(t, "$in, ts descending, limit "+itoa(limit), got, expect(docs, inCats, true, limit))
		got = findAll(t, coll, in, options.Find().SetSort(asc).SetLimit(int64(limit)))
		sameDocs(t, "$in, ts ascending, limit "+itoa(limit), got, expect(docs, inCats, false, limit))
	}
	// Residual filters: x is not in the index; the ts range is.
	resid := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: cats}}}, {Key: "x", Value: bson.D{{Key: "$lt", Value: 3}}}}
	keep := func(d fetchDoc) bool { return inCats(d) && d.X < 3 }
	for _, limit := range []int{1, 50, 0} {
		got := findAll(t, coll, resid, options.Find().SetSort(desc).SetLimit(int64(limit)))
		sameDocs(t, "residual x, limit "+itoa(limit), got, expect(docs, keep, true, limit))
	}
	rng := bson.D{{Key: "cat", Value: 4}, {Key: "ts", Value: bson.D{{Key: "$gte", Value: 500}, {Key: "$lt", Value: 2500}}}}
	got := findAll(t, coll, rng, options.Find().SetSort(asc))
	sameDocs(t, "equality and range", got, expect(docs, func(d fetchDoc) bool { return d.Cat == 4 && d.TS >= 500 && d.TS < 2500 }, false, 0))
	// No sort: index order, compared as sets.
	got = findAll(t, coll, in, nil)
	slices.SortFunc(got, func(a, b fetchDoc) int { return int(b.TS - a.TS) })
	sameDocs(t, "$in without sort", got, expect(docs, inCats, true, 0))

	// Deleted between the cursor's batches: a cursor reads one snapshot,
	// so it returns the documents as they were when it was opened.
	want := expect(docs, inCats, true, 0)
	cur, err := coll.Find(testenv.Ctx(t), in, options.Find().SetSort(desc).SetBatchSize(10))
	if err != nil {
		t.Fatal(err)
	}
	var seen []fetchDoc
	for cur.Next(testenv.Ctx(t)) {
		var d fetchDoc
		if err := cur.Decode(&d); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, d)
		if len(seen) == 5 {
			if _, err := coll.DeleteMany(testenv.Ctx(t), bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: bson.A{3, 5}}}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	sameDocs(t, "cursor over deleted documents", seen, want)
	after := findAll(t, coll, in, options.Find().SetSort(desc))
	sameDocs(t, "after the delete", after, expect(docs, func(d fetchDoc) bool { return d.Cat == 1 || d.Cat == 8 }, true, 0))

	// Writes plan through the same FETCH: the first match by the sort is
	// the one updated, and a multi update sees every match.
	var pre fetchDoc
	err = coll.FindOneAndUpdate(testenv.Ctx(t), bson.D{{Key: "cat", Value: 8}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 100}}}},
		options.FindOneAndUpdate().SetSort(desc)).Decode(&pre)
	if err != nil {
		t.Fatal(err)
	}
	if top := expect(docs, func(d fetchDoc) bool { return d.Cat == 8 }, true, 1)[0]; pre != top {
		t.Fatalf("findOneAndUpdate took %+v, want %+v", pre, top)
	}
	res, err := coll.UpdateMany(testenv.Ctx(t), bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: bson.D{{Key: "$lt", Value: 1000}}}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "x", Value: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(expect(docs, func(d fetchDoc) bool { return d.Cat == 1 && d.TS < 1000 }, true, 0)); res.ModifiedCount != int64(n) {
		t.Fatalf("updateMany modified %d, want %d", res.ModifiedCount, n)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "none"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// TestExplainCollScanPreferred checks the collection-scan preference: an
// index range holding most of the collection loses to COLLSCAN, shown in
// rejectedPlans with its reason; a hint, a limit, a sort the index
// provides or a selective range keep the index.
func TestExplainCollScanPreferred(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	coll := db.Collection("c")
	docs := loadFetchDocs(t, coll, 3000)
	if _, err := coll.Indexes().CreateOne(testenv.Ctx(t), mongo.IndexModel{Keys: bson.D{{Key: "ts", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	broad := bson.D{{Key: "ts", Value: bson.D{{Key: "$gte", Value: 100}, {Key: "$lt", Value: 2900}}}}
	winning := func(cmd bson.D) (bson.Raw, bson.Raw) {
		res := testenv.Explain(t, db, cmd, "executionStats")
		return res.Lookup("queryPlanner", "winningPlan").Document(), res
	}
	find := bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: broad}}
	wp, res := winning(find)
	if s := testenv.Stages(wp); len(s) != 1 || s[0] != "COLLSCAN" {
		t.Fatalf("broad range: winning plan %v, want COLLSCAN", wp)
	}
	if f, err := wp.LookupErr("filter"); err != nil || !strings.Contains(f.String(), "$gte") {
		t.Fatalf("COLLSCAN without the filter: %v", wp)
	}
	rejected, _ := res.Lookup("queryPlanner", "rejectedPlans").Array().Values()
	if len(rejected) == 0 {
		t.Fatalf("no rejected plan: %v", res.Lookup("queryPlanner"))
	}
	for _, r := range rejected {
		d := r.Document()
		ix := testenv.FindStage(d, "IXSCAN")
		reason, ok := d.Lookup("rejectedReason").StringValueOK()
		if ix == nil || !ok || !strings.Contains(reason, "collection scan preferred") {
			t.Fatalf("rejected plan %v: want an IXSCAN with rejectedReason", d)
		}
	}
	es := res.Lookup("executionStats").Document()
	if want := int64(2800); es.Lookup("nReturned").AsInt64() != want || es.Lookup("totalDocsExamined").AsInt64() != int64(len(docs)) {
		t.Fatalf("COLLSCAN returned %d and examined %d, want %d of %d", es.Lookup("nReturned").AsInt64(), es.Lookup("totalDocsExamined").AsInt64(), want, len(docs))
	}
	if got := findAll(t, coll, broad, nil); len(got) != 2800 {
		t.Fatalf("find returned %d documents, want 2800", len(got))
	}

	keepsIndex := map[string]bson.D{
		"hint":            append(slices.Clone(find), bson.E{Key: "hint", Value: bson.D{{Key: "ts", Value: 1}}}),
		"limit":           append(slices.Clone(find), bson.E{Key: "limit", Value: 10}),
		"sort":            append(slices.Clone(find), bson.E{Key: "sort", Value: bson.D{{Key: "ts", Value: 1}}}),
		"selective range": {{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "ts", Value: bson.D{{Key: "$gte", Value: 100}, {Key: "$lt", Value: 400}}}}}},
	}
	for name, cmd := range keepsIndex {
		wp, _ := winning(cmd)
		if !slices.Contains(testenv.Stages(wp), "IXSCAN") {
			t.Errorf("%s: winning plan %v, want the index", name, wp)
		}
	}
}
