package admin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/membudget"
	"github.com/lodedb/lode/test/testenv"
)

// TestServerMemoryBudget: with a small server-wide budget, a blocking
// sort or a $group that stays under its own 100 MB limit but not under the
// budget fails with 292 without allowDiskUse and spills with it; a request
// too large for the budget gets ExceededMemoryLimit (146) and the
// connection goes on; and every reservation is returned afterwards.
func TestServerMemoryBudget(t *testing.T) {
	// Not parallel: membudget.Server is process-wide: a parallel test's
	// requests would count against the 8 MB budget.
	_, db := testenv.Open(t)
	c := context.Background()
	coll := db.Collection("budget")
	pad := strings.Repeat("x", 1000)
	docs := make([]any, 0, 1000)
	for i := 0; i < 20_000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: (i * 7919) % 20_000}, {Key: "pad", Value: pad}})
		if len(docs) == cap(docs) {
			if _, err := coll.InsertMany(c, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	membudget.Server.SetLimit(8 << 20)
	defer membudget.Server.SetLimit(0)
	codeOf := func(err error) int {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return int(ce.Code)
		}
		return 0
	}
	count := func(cur *mongo.Cursor, err error) (int, error) {
		if err != nil {
			return 0, err
		}
		n := 0
		for cur.Next(c) {
			n++
		}
		return n, cur.Err()
	}
	// About 20 MB of documents: under the sort's own limit, over the budget.
	sortDocs := bson.D{{Key: "k", Value: 1}}
	if _, err := count(coll.Find(c, bson.D{}, options.Find().SetSort(sortDocs).SetAllowDiskUse(false))); codeOf(err) != 292 || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("find sort over the budget without allowDiskUse: %v, want 292 naming the budget", err)
	}
	if n, err := count(coll.Find(c, bson.D{}, options.Find().SetSort(sortDocs).SetAllowDiskUse(true))); err != nil || n != 20_000 {
		t.Fatalf("find sort with allowDiskUse: %d documents, %v", n, err)
	}
	aggSort := mongo.Pipeline{{{Key: "$sort", Value: sortDocs}}}
	if _, err := count(coll.Aggregate(c, aggSort, options.Aggregate().SetAllowDiskUse(false))); codeOf(err) != 292 {
		t.Fatalf("$sort over the budget without allowDiskUse: %v, want 292", err)
	}
	if n, err := count(coll.Aggregate(c, aggSort, options.Aggregate().SetAllowDiskUse(true))); err != nil || n != 20_000 {
		t.Fatalf("$sort with allowDiskUse: %d documents, %v", n, err)
	}
	group := mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$_id"}, {Key: "p", Value: bson.D{{Key: "$first", Value: "$pad"}}}}}}}
	if _, err := count(coll.Aggregate(c, group, options.Aggregate().SetAllowDiskUse(false))); codeOf(err) != 292 {
		t.Fatalf("$group over the budget without allowDiskUse: %v, want 292", err)
	}
	if n, err := count(coll.Aggregate(c, group, options.Aggregate().SetAllowDiskUse(true))); err != nil || n != 20_000 {
		t.Fatalf("$group with allowDiskUse: %d groups, %v", n, err)
	}
	// A 3 MB insert reserves 12 MB: refused, and the connection serves on.
	big := bson.D{{Key: "_id", Value: "big"}, {Key: "s", Value: strings.Repeat("y", 3<<20)}}
	if _, err := coll.InsertOne(c, big); codeOf(err) != 146 {
		t.Fatalf("3 MB insert over the budget: %v, want 146 ExceededMemoryLimit", err)
	}
	if err := db.RunCommand(c, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping after a refused request: %v", err)
	}
	if used := membudget.Server.Used(); used != 0 {
		t.Fatalf("%d bytes still reserved after every operation ended", used)
	}
	membudget.Server.SetLimit(0)
	if _, err := coll.InsertOne(c, big); err != nil {
		t.Fatalf("the same insert without a budget: %v", err)
	}
	if membudget.Server.Refused() == 0 {
		t.Fatal("no refusal counted")
	}
}
