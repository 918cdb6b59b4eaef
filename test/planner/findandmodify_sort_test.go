package planner_test

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// A findAndModify with a sort changes one document, so mongod plans its
// candidate search with limit 1: a top-k SORT that keeps the best
// document seen, never the whole match set (explain shows limitAmount 1).
// The work queue of seed 004 claims that way before its index exists.
// Over a sort memory limit a third the size of the matches, a full sort
// would spill to disk; the profiler's usedDisk says whether it did.
func TestFindAndModifySortIsTopK(t *testing.T) {
	// Not parallel: internalQueryMaxBlockingSortMemoryUsageBytes is
	// process-wide.
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("jobs")
	pad := strings.Repeat("x", 1000)
	const n = 3000
	testenv.InsertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "k", Value: (i * 7) % n}, {Key: "claimed", Value: false}, {Key: "pad", Value: pad}}
	})
	testenv.SetParameter(t, db, "internalQueryMaxBlockingSortMemoryUsageBytes", 1<<20)
	defer testenv.SetParameter(t, db, "internalQueryMaxBlockingSortMemoryUsageBytes", 100<<20)
	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "profile", Value: 2}}); err != nil {
		t.Fatal(err)
	}

	// Claims in k order, the least first.
	for want := int32(0); want < 3; want++ {
		var got bson.Raw
		err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "claimed", Value: false}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "claimed", Value: true}}}},
			options.FindOneAndUpdate().SetSort(bson.D{{Key: "k", Value: 1}}).SetReturnDocument(options.After)).Decode(&got)
		if err != nil {
			t.Fatal(err)
		}
		if k := got.Lookup("k").Int32(); k != want || !got.Lookup("claimed").Boolean() {
			t.Fatalf("claim %d: got k %d claimed %v", want, k, got.Lookup("claimed"))
		}
	}
	// A removal by the greatest k.
	var del bson.Raw
	if err := coll.FindOneAndDelete(ctx, bson.D{}, options.FindOneAndDelete().SetSort(bson.D{{Key: "k", Value: -1}})).Decode(&del); err != nil {
		t.Fatal(err)
	}
	if k := del.Lookup("k").Int32(); k != n-1 {
		t.Fatalf("delete by k descending removed k %d, want %d", k, n-1)
	}

	if _, err := testenv.RunCmd(t, db, bson.D{{Key: "profile", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	cur, err := db.Collection("system.profile").Find(ctx, bson.D{{Key: "command.findAndModify", Value: "jobs"}})
	if err != nil {
		t.Fatal(err)
	}
	var entries []bson.Raw
	if err := cur.All(ctx, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 {
		t.Fatalf("%d findAndModify profile entries, want 4", len(entries))
	}
	for _, e := range entries {
		if v, err := e.LookupErr("hasSortStage"); err != nil || !v.Boolean() {
			t.Errorf("profile entry without hasSortStage: %v", e)
		}
		if v, err := e.LookupErr("usedDisk"); err == nil && v.Boolean() {
			t.Errorf("findAndModify's sort spilled to disk (a full sort, not top-k): %v", e)
		}
		// Each scan reads the whole collection (no index on k), as it
		// stood: nothing was removed before the last.
		if got := e.Lookup("docsExamined").AsInt64(); got != n {
			t.Errorf("docsExamined %d, want %d: %v", got, n, e)
		}
	}
}

// A findAndModify sorted by {$natural: 1} takes the first match in record
// order (insertion order here) and {$natural: -1} the last, as a find
// with that sort returns them: mongod scans the collection in that
// direction. Lode dropped the direction and took the first either way.
func TestFindAndModifyNaturalSort(t *testing.T) {
	t.Parallel()
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("q")
	// _id falling, so that neither _id order nor an index gives the
	// answer by accident.
	for i := 0; i < 5; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 10 - i}, {Key: "x", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	natural := func(dir int) bson.D { return bson.D{{Key: "$natural", Value: dir}} }
	var got bson.Raw
	if err := coll.FindOneAndUpdate(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: true}}}},
		options.FindOneAndUpdate().SetSort(natural(-1))).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if x := got.Lookup("x").Int32(); x != 4 {
		t.Errorf("update sorted {$natural: -1} took x %d, want 4 (the last inserted)", x)
	}
	if err := coll.FindOneAndUpdate(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: true}}}},
		options.FindOneAndUpdate().SetSort(natural(1))).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if x := got.Lookup("x").Int32(); x != 0 {
		t.Errorf("update sorted {$natural: 1} took x %d, want 0 (the first inserted)", x)
	}
	if err := coll.FindOneAndDelete(ctx, bson.D{{Key: "x", Value: bson.D{{Key: "$lt", Value: 3}}}},
		options.FindOneAndDelete().SetSort(natural(-1))).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if x := got.Lookup("x").Int32(); x != 2 {
		t.Errorf("delete sorted {$natural: -1} of x < 3 took x %d, want 2", x)
	}
	// A find with the same sort agrees.
	var first bson.Raw
	if err := coll.FindOne(ctx, bson.D{}, options.FindOne().SetSort(natural(-1))).Decode(&first); err != nil {
		t.Fatal(err)
	}
	if x := first.Lookup("x").Int32(); x != 4 {
		t.Errorf("find sorted {$natural: -1} returned x %d, want 4", x)
	}
}
