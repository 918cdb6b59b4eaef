package transactions_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestSnapshotSessionReads checks snapshot reads outside transactions
// (the Go driver's snapshot sessions): the first find, aggregate or
// distinct of a session fixes its atClusterTime, and every later read of
// that session sees the data as of then, including a getMore, while
// reads outside the session see the writes made since. It also checks
// mongod's refusals: a write or another command with readConcern
// snapshot is InvalidOptions (72), and an atClusterTime Lode holds no
// snapshot for is SnapshotTooOld (239).
func TestSnapshotSessionReads(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	c := testenv.Ctx(t)
	coll := d.Collection("snapsess")
	docs := make([]any, 0, 10)
	for i := 0; i < 10; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "x", Value: 11}})
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	sess, err := db.Client().StartSession(options.Session().SetSnapshot(true))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(c)
	sc := mongo.NewSessionContext(c, sess)

	xOf := func(ctx context.Context, id int) int32 {
		t.Helper()
		var got struct {
			X int32 `bson:"x"`
		}
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&got); err != nil {
			t.Fatal(err)
		}
		return got.X
	}
	if got := xOf(sc, 0); got != 11 {
		t.Fatalf("first snapshot read: x = %d", got)
	}
	if _, err := coll.UpdateMany(c, bson.D{}, bson.D{{Key: "$inc", Value: bson.D{{Key: "x", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(c, bson.D{{Key: "_id", Value: 100}, {Key: "x", Value: 99}}); err != nil {
		t.Fatal(err)
	}
	if got := xOf(c, 0); got != 12 {
		t.Fatalf("read outside the session: x = %d, want 12", got)
	}
	if got := xOf(sc, 0); got != 11 {
		t.Fatalf("second snapshot read: x = %d, want the snapshot's 11", got)
	}
	// aggregate and distinct read the same snapshot.
	cur, err := coll.Aggregate(sc, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "s", Value: bson.D{{Key: "$sum", Value: "$x"}}}, {Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var agg []bson.M
	if err := cur.All(sc, &agg); err != nil {
		t.Fatal(err)
	}
	if len(agg) != 1 || agg[0]["s"] != int32(110) || agg[0]["n"] != int32(10) {
		t.Fatalf("aggregate in the snapshot: %v, want s 110 over 10 documents", agg)
	}
	res := coll.Distinct(sc, "x", bson.D{})
	var xs []int32
	if err := res.Decode(&xs); err != nil {
		t.Fatal(err)
	}
	if len(xs) != 1 || xs[0] != 11 {
		t.Fatalf("distinct in the snapshot: %v, want [11]", xs)
	}
	// A find whose results take several batches reads the snapshot in
	// its getMores too.
	if _, err := coll.DeleteMany(c, bson.D{}); err != nil {
		t.Fatal(err)
	}
	fc, err := coll.Find(sc, bson.D{}, options.Find().SetBatchSize(3))
	if err != nil {
		t.Fatal(err)
	}
	var all []bson.M
	if err := fc.All(sc, &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != 10 {
		t.Fatalf("find over getMores in the snapshot: %d documents, want 10", len(all))
	}

	// Refusals, sent as raw commands.
	rc := bson.D{{Key: "level", Value: "snapshot"}}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "insert", Value: "snapsess"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}, {Key: "readConcern", Value: rc}})
	testenv.WantCode(t, "insert with readConcern snapshot", err, 72)
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "listCollections", Value: 1}, {Key: "readConcern", Value: rc}})
	testenv.WantCode(t, "listCollections with readConcern snapshot", err, 72)
	old := bson.Timestamp{T: 1, I: 1}
	_, err = testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "snapsess"}, {Key: "readConcern", Value: bson.D{{Key: "level", Value: "snapshot"}, {Key: "atClusterTime", Value: old}}}})
	testenv.WantCode(t, "find at a time with no snapshot", err, 239)
	// A reply names the time it read at.
	r, err := testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "snapsess"}, {Key: "readConcern", Value: rc}})
	testenv.WantOK(t, r, err)
	if _, _, ok := testenv.Field(t, r, "cursor.atClusterTime").TimestampOK(); !ok {
		t.Fatalf("find with readConcern snapshot: no cursor.atClusterTime in %v", r)
	}

	// Past minSnapshotHistoryWindowInSeconds with no reader, the
	// session's snapshot is gone: SnapshotTooOld, as past mongod's window.
	testenv.SetParameter(t, db.Client().Database("admin"), "minSnapshotHistoryWindowInSeconds", 0)
	time.Sleep(10 * time.Millisecond)
	r, err = testenv.RunCmd(t, d, bson.D{{Key: "find", Value: "snapsess"}, {Key: "readConcern", Value: rc}})
	testenv.WantOK(t, r, err)
	err = coll.FindOne(sc, bson.D{{Key: "_id", Value: 0}}).Err()
	testenv.WantCode(t, "session read after the window", err, 239)
}
