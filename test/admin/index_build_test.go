package admin_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// fillBuildColl inserts n documents {_id: i, cat: i%100, s: <40 bytes>,
// arr: [i%3, i%5], u: i} into coll.
func fillBuildColl(t *testing.T, coll *mongo.Collection, n int) {
	t.Helper()
	const batch = 10_000
	docs := make([]any, 0, batch)
	for i := 0; i < n; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "cat", Value: int32(i % 100)},
			{Key: "s", Value: fmt.Sprintf("%08x-padding-to-forty-bytes-%06d", uint32(i)*2654435761, i)},
			{Key: "arr", Value: bson.A{int32(i % 3), int32(i % 5)}}, {Key: "u", Value: int32(i)}})
		if len(docs) == batch || i == n-1 {
			if _, err := coll.InsertMany(context.Background(), docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
}

func hintedCount(t *testing.T, coll *mongo.Collection, filter bson.D, hint any) int64 {
	t.Helper()
	n, err := coll.CountDocuments(context.Background(), filter, options.Count().SetHint(hint))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIndexBuildSorted: index builds over a collection large enough that
// their keys are sorted and ingested as sstables (compound, descending,
// multikey) answer queries exactly, stay correct under later writes and
// survive a reopen.
func TestIndexBuildSorted(t *testing.T) {
	t.Parallel()
	const n = 120_000
	dir := t.TempDir()
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	coll := db.Client().Database("test").Collection("big")
	fillBuildColl(t, coll, n)
	c := context.Background()
	for _, keys := range []bson.D{{{Key: "cat", Value: 1}, {Key: "s", Value: -1}}, {{Key: "arr", Value: 1}}} {
		if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: keys}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(stage string) {
		t.Helper()
		if got := hintedCount(t, coll, bson.D{{Key: "cat", Value: bson.D{{Key: "$gte", Value: 10}, {Key: "$lt", Value: 20}}}}, "cat_1_s_-1"); got != n/10 {
			t.Fatalf("%s: {cat: [10, 20)} by index: %d, want %d", stage, got, n/10)
		}
		// arr holds i%3 and i%5: 4 only comes from i%5.
		if got := hintedCount(t, coll, bson.D{{Key: "arr", Value: 4}}, "arr_1"); got != n/5 {
			t.Fatalf("%s: {arr: 4} by index: %d, want %d", stage, got, n/5)
		}
		// The newest five of category 7 in s order, from the index.
		cur, err := coll.Find(c, bson.D{{Key: "cat", Value: 7}}, options.Find().SetSort(bson.D{{Key: "s", Value: -1}}).SetLimit(5).SetHint("cat_1_s_-1"))
		if err != nil {
			t.Fatal(err)
		}
		var got []struct {
			S string `bson:"s"`
		}
		if err := cur.All(c, &got); err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := 7; i < n; i += 100 {
			want = append(want, fmt.Sprintf("%08x-padding-to-forty-bytes-%06d", uint32(i)*2654435761, i))
		}
		// descending: the five largest
		for i := 1; i < len(want); i++ {
			for j := i; j > 0 && want[j-1] < want[j]; j-- {
				want[j-1], want[j] = want[j], want[j-1]
			}
		}
		if len(got) != 5 {
			t.Fatalf("%s: %d results", stage, len(got))
		}
		for i := range got {
			if got[i].S != want[i] {
				t.Fatalf("%s: result %d is %q, want %q", stage, i, got[i].S, want[i])
			}
		}
	}
	check("after the build")
	var plan bson.Raw
	if err := db.Client().Database("test").RunCommand(c, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "big"}, {Key: "filter", Value: bson.D{{Key: "arr", Value: 4}}}, {Key: "hint", Value: "arr_1"}}}}).Decode(&plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.String(), `"isMultiKey": true`) {
		t.Fatalf("the built arr_1 index is not multikey: %s", plan)
	}
	// Later writes maintain the built entries: move category 10 to 99
	// and delete category 11.
	if _, err := coll.UpdateMany(c, bson.D{{Key: "cat", Value: 10}}, bson.D{{Key: "$set", Value: bson.D{{Key: "cat", Value: 99}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteMany(c, bson.D{{Key: "cat", Value: 11}}); err != nil {
		t.Fatal(err)
	}
	if got := hintedCount(t, coll, bson.D{{Key: "cat", Value: bson.D{{Key: "$gte", Value: 10}, {Key: "$lt", Value: 20}}}}, "cat_1_s_-1"); got != n/10-2*n/100 {
		t.Fatalf("after writes: %d, want %d", got, n/10-2*n/100)
	}
	if got := hintedCount(t, coll, bson.D{{Key: "cat", Value: 99}}, "cat_1_s_-1"); got != 2*n/100 {
		t.Fatalf("after writes: category 99 has %d, want %d", got, 2*n/100)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	coll = db.Client().Database("test").Collection("big")
	if got := hintedCount(t, coll, bson.D{{Key: "cat", Value: 99}}, "cat_1_s_-1"); got != 2*n/100 {
		t.Fatalf("after reopen: category 99 has %d, want %d", got, 2*n/100)
	}
	// Category 11 (deleted) has i%5 == 1, so {arr: 4} still matches n/5;
	// {arr: 1} lost documents and must agree with a collection scan.
	if got := hintedCount(t, coll, bson.D{{Key: "arr", Value: 4}}, "arr_1"); got != n/5 {
		t.Fatalf("after reopen: {arr: 4} by index: %d, want %d", got, n/5)
	}
	if got, want := hintedCount(t, coll, bson.D{{Key: "arr", Value: 1}}, "arr_1"), hintedCount(t, coll, bson.D{{Key: "arr", Value: 1}}, bson.D{{Key: "$natural", Value: 1}}); got != want {
		t.Fatalf("after reopen: {arr: 1} by index: %d, by collection scan %d", got, want)
	}
}

// TestIndexBuildSortedUniqueDuplicate: a unique index build over a large
// collection with one duplicate fails with mongod's E11000 error naming
// the value, and leaves no index behind.
func TestIndexBuildSortedUniqueDuplicate(t *testing.T) {
	t.Parallel()
	const n = 100_000
	_, db := testenv.Open(t)
	coll := db.Collection("big")
	fillBuildColl(t, coll, n)
	c := context.Background()
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 77_777}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 5}}}}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)})
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 11000 {
		t.Fatalf("unique build over a duplicate: %v, want code 11000", err)
	}
	if want := "E11000 duplicate key error collection: test.big index: u_1 dup key: { u: 5 }"; ce.Message != want {
		t.Fatalf("message %q, want %q", ce.Message, want)
	}
	specs, err := coll.Indexes().ListSpecifications(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 1 {
		t.Fatalf("indexes after the failed build: %v", specs)
	}
	// Without the duplicate the same build succeeds and enforces.
	if _, err := coll.UpdateOne(c, bson.D{{Key: "_id", Value: 77_777}}, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 77_777}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "u", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(c, bson.D{{Key: "u", Value: 5}}); !mongo.IsDuplicateKeyError(err) {
		t.Fatalf("insert of a duplicate after the build: %v", err)
	}
}

// TestIndexBuildCurrentOpAndKillOp: a running index build shows mongod's
// msg and progress in currentOp, and killOp stops it with 11601
// Interrupted and no index.
func TestIndexBuildCurrentOpAndKillOp(t *testing.T) {
	t.Parallel()
	const n = 200_000
	_, db := testenv.Open(t)
	coll := db.Collection("big")
	fillBuildColl(t, coll, n)
	c := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: bson.D{{Key: "s", Value: 1}, {Key: "cat", Value: 1}, {Key: "u", Value: -1}}})
		done <- err
	}()
	admin := db.Client().Database("admin")
	var op bson.Raw
	for deadline := time.Now().Add(10 * time.Second); op == nil && time.Now().Before(deadline); {
		var res bson.Raw
		if err := admin.RunCommand(c, bson.D{{Key: "currentOp", Value: 1}, {Key: "command.createIndexes", Value: "big"}, {Key: "msg", Value: bson.D{{Key: "$exists", Value: true}}}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		if ops, _ := res.Lookup("inprog").Array().Values(); len(ops) > 0 {
			op = ops[0].Document()
		}
	}
	if op == nil {
		t.Fatal("the index build never showed progress in currentOp")
	}
	if _, err := admin.RunCommand(c, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: op.Lookup("opid")}}).Raw(); err != nil {
		t.Fatal(err)
	}
	msg := op.Lookup("msg").StringValue()
	phase := msg[:max(strings.LastIndex(msg, ": "), 0)]
	if phase != "Index Build: scanning collection Index Build: scanning collection" &&
		phase != "Index Build: inserting keys from external sorter into index Index Build: inserting keys from external sorter into index" {
		t.Fatalf("msg %q", msg)
	}
	prog := op.Lookup("progress").Document()
	doneN, total := prog.Lookup("done").AsInt64(), prog.Lookup("total").AsInt64()
	if total != n || doneN < 0 || doneN > total {
		t.Fatalf("progress %v, want done within total %d", prog, n)
	}
	if want := fmt.Sprintf("%d/%d %d%%", doneN, total, doneN*100/total); !strings.HasSuffix(msg, want) {
		t.Fatalf("msg %q does not end with %q", msg, want)
	}
	err := <-done
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 11601 {
		t.Fatalf("killed build: %v, want 11601 Interrupted", err)
	}
	specs, err := coll.Indexes().ListSpecifications(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 1 {
		t.Fatalf("indexes after the killed build: %v", specs)
	}
}

// TestIndexBuildGroupedByFirstField: builds of compound indexes whose
// later fields rise with the documents' insertion within each value of
// the first ({cat: 1, u: 1, s: 1}, {cat: 1, u: -1, s: 1}, u rising)
// group their entries on the first field instead of sorting them, and one
// whose keys fall as the records rise ({u: -1, s: 1}) is reversed; a
// walk of the whole index must return every document in the index's
// order. The entries (about 5 MB) are written as sstables, whose writer
// refuses keys out of order.
func TestIndexBuildGroupedByFirstField(t *testing.T) {
	t.Parallel()
	const n = 80_000
	_, db := testenv.Open(t)
	coll := db.Collection("grouped")
	fillBuildColl(t, coll, n)
	type entry struct {
		Cat int32 `bson:"cat"`
		U   int32 `bson:"u"`
	}
	// walk builds the index keys and returns {cat, u} of every document
	// in its order.
	walk := func(keys bson.D) (string, []entry) {
		t.Helper()
		c := context.Background()
		name, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		cur, err := coll.Find(c, bson.D{}, options.Find().SetSort(keys).SetHint(name).
			SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "cat", Value: 1}, {Key: "u", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		var got []entry
		if err := cur.All(c, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%s: %d documents, want %d", name, len(got), n)
		}
		return name, got
	}
	for _, dir := range []int32{1, -1} {
		name, got := walk(bson.D{{Key: "cat", Value: 1}, {Key: "u", Value: dir}, {Key: "s", Value: 1}})
		// Category by category, u in the index's direction: u = cat +
		// 100k, k from 0 up (ascending) or down (descending).
		i := 0
		for cat := int32(0); cat < 100; cat++ {
			for k := int32(0); k < n/100; k++ {
				u := cat + 100*k
				if dir < 0 {
					u = cat + 100*(n/100-1-k)
				}
				if got[i].Cat != cat || got[i].U != u {
					t.Fatalf("%s: entry %d is {cat: %d, u: %d}, want {cat: %d, u: %d}", name, i, got[i].Cat, got[i].U, cat, u)
				}
				i++
			}
		}
	}
	// {u: -1, s: 1}: its keys fall as the records rise, so the build
	// reverses them instead of sorting them.
	name, got := walk(bson.D{{Key: "u", Value: -1}, {Key: "s", Value: 1}})
	for i, d := range got {
		if d.U != int32(n-1-i) {
			t.Fatalf("%s: entry %d has u %d, want %d", name, i, d.U, n-1-i)
		}
	}
}
