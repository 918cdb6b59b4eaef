// Package changestreams tests the oplog and change streams through the Go
// driver: watch() on a collection, a database and the deployment, every
// event kind in commit order, resume tokens, and local.oplog.rs.
package changestreams

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// next reads the stream's next event, failing after 5 s.
func next(t *testing.T, cs *mongo.ChangeStream) bson.Raw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !cs.Next(ctx) {
		t.Fatalf("no event: %v", cs.Err())
	}
	return append(bson.Raw(nil), cs.Current...)
}

func opType(ev bson.Raw) string { s, _ := ev.Lookup("operationType").StringValueOK(); return s }

// i32 reads an int32 at a path of ev (0 when absent).
func i32(ev bson.Raw, path ...string) int32 { n, _ := ev.Lookup(path...).Int32OK(); return n }

// str reads a string at a path of ev.
func str(ev bson.Raw, path ...string) string { s, _ := ev.Lookup(path...).StringValueOK(); return s }

// has reports whether ev has a value at path.
func has(ev bson.Raw, path ...string) bool { _, err := ev.LookupErr(path...); return err == nil }

// TestCollectionEvents: insert, update (with updateDescription), replace,
// delete, then drop and invalidate, in commit order, on a collection
// stream; the stream ends after invalidate.
func TestCollectionEvents(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("events")
	if err := db.CreateCollection(ctx, "events"); err != nil {
		t.Fatal(err)
	}
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}, {Key: "gone", Value: true}, {Key: "arr", Value: bson.A{1, 2, 3}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{
		{Key: "$set", Value: bson.D{{Key: "a", Value: 2}, {Key: "b.c", Value: "x"}}},
		{Key: "$unset", Value: bson.D{{Key: "gone", Value: ""}}},
		{Key: "$pop", Value: bson.D{{Key: "arr", Value: 1}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "r", Value: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := coll.Drop(ctx); err != nil {
		t.Fatal(err)
	}

	ins := next(t, cs)
	if opType(ins) != "insert" || i32(ins, "fullDocument", "a") != 1 ||
		i32(ins, "documentKey", "_id") != 1 || str(ins, "ns", "coll") != "events" {
		t.Fatalf("insert event = %v", ins)
	}
	if ins.Lookup("clusterTime").Type != bson.TypeTimestamp {
		t.Fatalf("insert event lacks clusterTime: %v", ins)
	}
	if ins.Lookup("wallTime").Type != bson.TypeDateTime {
		t.Fatalf("insert event lacks wallTime: %v", ins)
	}
	upd := next(t, cs)
	if opType(upd) != "update" {
		t.Fatalf("update event = %v", upd)
	}
	// mongod reports a new embedded document as one field, {b: {c: "x"}}.
	want := `{"updatedFields": {"a": {"$numberInt":"2"},"b": {"c": "x"}},"removedFields": ["gone"],"truncatedArrays": [{"field": "arr","newSize": {"$numberInt":"2"}}]}`
	if got := upd.Lookup("updateDescription").Document().String(); got != want {
		t.Fatalf("updateDescription =\n %s\nwant\n %s", got, want)
	}
	if has(upd, "fullDocument") {
		t.Fatalf("update event without updateLookup has fullDocument: %v", upd)
	}
	rep := next(t, cs)
	if r, _ := rep.Lookup("fullDocument", "r").BooleanOK(); opType(rep) != "replace" || !r {
		t.Fatalf("replace event = %v", rep)
	}
	del := next(t, cs)
	if opType(del) != "delete" || i32(del, "documentKey", "_id") != 1 {
		t.Fatalf("delete event = %v", del)
	}
	drop := next(t, cs)
	if opType(drop) != "drop" || str(drop, "ns", "coll") != "events" {
		t.Fatalf("drop event = %v", drop)
	}
	inv := next(t, cs)
	if opType(inv) != "invalidate" {
		t.Fatalf("invalidate event = %v", inv)
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if cs.Next(sctx) {
		t.Fatalf("event after invalidate: %v", cs.Current)
	}
	if cs.ID() != 0 {
		t.Fatalf("cursor %d still open after invalidate", cs.ID())
	}
}

// TestResumeAfter: a stream resumed from an event's token delivers the
// events after it and no other.
func TestResumeAfter(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("r")
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	next(t, cs)
	second := next(t, cs)
	tok := cs.ResumeToken()
	cs.Close(ctx)
	if i32(second, "documentKey", "_id") != 1 {
		t.Fatalf("second event = %v", second)
	}
	cs2, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(tok))
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close(ctx)
	for want := int32(2); want < 5; want++ {
		ev := next(t, cs2)
		if i32(ev, "documentKey", "_id") != want {
			t.Fatalf("resumed event = %v, want _id %d", ev, want)
		}
	}
}

// TestUpdateLookupAndTransactions: fullDocument updateLookup returns the
// current document; a transaction's writes arrive together, with its
// lsid and txnNumber, once it commits.
func TestUpdateLookupAndTransactions(t *testing.T) {
	ldb, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("t")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "n", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	cs, err := db.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetFullDocument(options.UpdateLookup))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	ev := next(t, cs)
	if opType(ev) != "update" || i32(ev, "fullDocument", "n") != 1 {
		t.Fatalf("updateLookup event = %v", ev)
	}
	sess, err := ldb.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 2}}); err != nil {
			return nil, err
		}
		_, err := db.Collection("other").InsertOne(sc, bson.D{{Key: "_id", Value: 3}})
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	a, b := next(t, cs), next(t, cs)
	if opType(a) != "insert" || opType(b) != "insert" || i32(a, "documentKey", "_id") != 2 ||
		str(b, "ns", "coll") != "other" {
		t.Fatalf("transaction events = %v, %v", a, b)
	}
	if !has(a, "txnNumber") || !has(a, "lsid") || !a.Lookup("clusterTime").Equal(b.Lookup("clusterTime")) {
		t.Fatalf("transaction events lack txnNumber/lsid or differ in clusterTime: %v %v", a, b)
	}
}

// TestStartAfterInvalidateAndClusterStream: resumeAfter an invalidate
// token is refused (260), startAfter it continues with the recreated
// collection; a deployment-wide stream sees every user database but not
// admin, config or local.
func TestStartAfterInvalidateAndClusterStream(t *testing.T) {
	ldb, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	all, err := ldb.Client().Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close(ctx)
	coll := db.Collection("s")
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := coll.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	next(t, cs)
	next(t, cs)
	inv := next(t, cs)
	if opType(inv) != "invalidate" {
		t.Fatalf("want invalidate, got %v", inv)
	}
	tok := inv.Lookup("_id").Document()
	cs.Close(ctx)
	_, err = coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(tok))
	testenv.WantCode(t, "resumeAfter an invalidate", err, 260)
	cs2, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetStartAfter(tok))
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close(ctx)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, cs2); opType(ev) != "insert" || i32(ev, "documentKey", "_id") != 2 {
		t.Fatalf("after startAfter: %v", ev)
	}
	if _, err := ldb.Client().Database("admin").Collection("x").InsertOne(ctx, bson.D{{Key: "_id", Value: 9}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ldb.Client().Database("other").Collection("y").InsertOne(ctx, bson.D{{Key: "_id", Value: 3}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 4 {
		ev := next(t, all)
		got = append(got, opType(ev)+" "+str(ev, "ns", "db")+"."+str(ev, "ns", "coll"))
	}
	want := []string{"insert test.s", "drop test.s", "insert test.s", "insert other.y"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("deployment stream = %v, want %v", got, want)
		}
	}
	_, err = db.Collection("s").Watch(ctx, mongo.Pipeline{bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}}}}})
	testenv.WantCode(t, "$group after $changeStream", err, 20)
	_, err = ldb.Client().Database("admin").Collection("x").Watch(ctx, mongo.Pipeline{})
	testenv.WantCode(t, "stream on admin", err, 73)
}

// TestModifiedResumeTokenRefused: a stage that changes an event's _id
// (its resume token) fails the stream with ChangeStreamFatalError (280);
// stages that keep it, like $match and $project of other fields, work.
func TestModifiedResumeTokenRefused(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("p")
	keep, err := coll.Watch(ctx, mongo.Pipeline{
		bson.D{{Key: "$match", Value: bson.D{{Key: "fullDocument.k", Value: "yes"}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "operationType", Value: 1}, {Key: "fullDocument.k", Value: 1}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close(ctx)
	bad, err := coll.Watch(ctx, mongo.Pipeline{bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close(ctx)
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "k", Value: "no"}}, bson.D{{Key: "k", Value: "yes"}}}); err != nil {
		t.Fatal(err)
	}
	ev := next(t, keep)
	if str(ev, "fullDocument", "k") != "yes" || has(ev, "ns") || !has(ev, "_id") {
		t.Fatalf("matched and projected event = %v", ev)
	}
	nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if bad.Next(nctx) {
		t.Fatalf("event without its _id delivered: %v", bad.Current)
	}
	testenv.WantCode(t, "_id removed", bad.Err(), 280)
	// mongod labels it so that drivers do not resume.
	var se mongo.ServerError
	if !errors.As(bad.Err(), &se) || !se.HasErrorLabel("NonResumableChangeStreamError") {
		t.Fatalf("_id removed: %v lacks the NonResumableChangeStreamError label", bad.Err())
	}
}
