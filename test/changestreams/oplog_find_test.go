package changestreams

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestOplogFindCombined: local.oplog.rs is read through the ordinary find
// path: a filter, a sort on another field, a projection, skip and limit
// in one query; $natural both ways with skip and limit and a ts range;
// showRecordId (the entry's timestamp as a long).
func TestOplogFindCombined(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("combined")
	for i := range 20 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "g", Value: i % 4}}); err != nil {
			t.Fatal(err)
		}
	}
	filter := bson.D{{Key: "ns", Value: "test.combined"}, {Key: "o.g", Value: bson.D{{Key: "$in", Value: bson.A{1, 3}}}}}
	// o._id 1, 3, 5, ..., 19 match; sorted by o.g then o._id descending:
	// g 3 (19, 15, 11, 7, 3), g 1 (17, 13, 9, 5, 1).
	got := entries(t, db, filter, options.Find().
		SetSort(bson.D{{Key: "o.g", Value: -1}, {Key: "o._id", Value: -1}}).
		SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "o", Value: 1}}).
		SetSkip(3).SetLimit(4))
	want := []int32{7, 3, 17, 13}
	if len(got) != len(want) {
		t.Fatalf("sorted read = %v", got)
	}
	for i, e := range got {
		if i32(e, "o", "_id") != want[i] || has(e, "ts") || has(e, "op") {
			t.Fatalf("sorted read entry %d = %v, want o._id %d and only o", i, e, want[i])
		}
	}

	all := entries(t, db, bson.D{{Key: "ns", Value: "test.combined"}})
	a, b := ts(t, all[2]), ts(t, all[17])
	window := bson.D{{Key: "ns", Value: "test.combined"}, {Key: "ts", Value: bson.D{{Key: "$gte", Value: a}, {Key: "$lte", Value: b}}}}
	for _, c := range []struct {
		dir  int
		want []int32
	}{{1, []int32{4, 5, 6}}, {-1, []int32{15, 14, 13}}} {
		got := entries(t, db, window, options.Find().SetSort(bson.D{{Key: "$natural", Value: c.dir}}).SetSkip(2).SetLimit(3).
			SetProjection(bson.D{{Key: "o._id", Value: 1}, {Key: "ts", Value: 1}}))
		if len(got) != 3 {
			t.Fatalf("$natural %d: %v", c.dir, got)
		}
		for i, e := range got {
			if i32(e, "o", "_id") != c.want[i] {
				t.Fatalf("$natural %d: entry %d = %v, want o._id %d", c.dir, i, e, c.want[i])
			}
		}
	}

	withID := entries(t, db, bson.D{{Key: "ns", Value: "test.combined"}}, options.Find().SetShowRecordID(true).SetLimit(1))
	if len(withID) != 1 {
		t.Fatalf("showRecordId read = %v", withID)
	}
	tsv := ts(t, withID[0])
	if rid, ok := withID[0].Lookup("$recordId").Int64OK(); !ok || rid != int64(tsv.T)<<32|int64(tsv.I) {
		t.Fatalf("$recordId = %v, want the entry's ts %v", withID[0].Lookup("$recordId"), tsv)
	}
}

// TestOplogTailFromTS: a tailable awaitData cursor that starts after a
// timestamp (the start point of a secondary's or a tool's oplog tail)
// returns the later entries that match, projected, then the new ones as
// they commit, and skips what the filter rejects.
func TestOplogTailFromTS(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("tailts")
	for i := range 5 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	all := entries(t, db, bson.D{{Key: "ns", Value: "test.tailts"}})
	start := ts(t, all[2])
	cur, err := oplogColl(db).Find(ctx,
		bson.D{{Key: "ts", Value: bson.D{{Key: "$gt", Value: start}}}, {Key: "ns", Value: "test.tailts"}, {Key: "o._id", Value: bson.D{{Key: "$ne", Value: 7}}}},
		options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(500*time.Millisecond).
			SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "o", Value: 1}}).SetBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	go func() {
		for i := 5; i < 10; i++ {
			time.Sleep(20 * time.Millisecond)
			if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for _, want := range []int32{3, 4, 5, 6, 8, 9} {
		nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		ok := cur.Next(nctx)
		cancel()
		if !ok {
			t.Fatalf("tailable cursor stopped before o._id %d: %v", want, cur.Err())
		}
		if got := i32(cur.Current, "o", "_id"); got != want || has(cur.Current, "ts") {
			t.Fatalf("entry = %v, want o._id %d projected", cur.Current, want)
		}
	}
	if cur.TryNext(ctx) {
		t.Fatalf("unexpected entry %v", cur.Current)
	}
	if cur.ID() == 0 {
		t.Fatal("tailable cursor closed at the end of the data")
	}
}

// TestOplogExplain: explain of a find on local.oplog.rs shows the scan
// that reads it, a COLLSCAN in the requested direction, and its figures.
func TestOplogExplain(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	for i := range 5 {
		if _, err := db.Collection("explained").InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := testenv.RunCmd(t, db.Client().Database("local"), bson.D{
		{Key: "explain", Value: bson.D{{Key: "find", Value: "oplog.rs"},
			{Key: "filter", Value: bson.D{{Key: "ns", Value: "test.explained"}}},
			{Key: "sort", Value: bson.D{{Key: "ts", Value: -1}}}}},
		{Key: "verbosity", Value: "executionStats"}})
	testenv.WantOK(t, res, err)
	plan := res.Lookup("queryPlanner", "winningPlan")
	if s, _ := plan.Document().Lookup("stage").StringValueOK(); s != "COLLSCAN" {
		t.Fatalf("winningPlan = %v", plan)
	}
	if d, _ := plan.Document().Lookup("direction").StringValueOK(); d != "backward" {
		t.Fatalf("winningPlan = %v, want a backward scan for {ts: -1}", plan)
	}
	if n, _ := res.Lookup("executionStats", "nReturned").AsInt64OK(); n != 5 {
		t.Fatalf("executionStats = %v", res.Lookup("executionStats"))
	}
}
