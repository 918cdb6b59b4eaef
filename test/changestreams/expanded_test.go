package changestreams

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestDisambiguatedPaths: with showExpandedEvents an update event's
// updateDescription has disambiguatedPaths (MongoDB 6.1+), which gives
// each ambiguous path — one with a numeric field name below the top
// level, or a field name containing a dot — as an array of its parts,
// array indexes as integers, and is empty when no path is ambiguous;
// without showExpandedEvents it is absent.
func TestDisambiguatedPaths(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("amb")
	if _, err := coll.InsertOne(ctx, bson.D{
		{Key: "_id", Value: 1},
		{Key: "a", Value: bson.D{{Key: "1", Value: 1}}},
		{Key: "arr", Value: bson.A{bson.D{{Key: "1", Value: 1}}, 7}},
		{Key: "plain", Value: 1},
	}); err != nil {
		t.Fatal(err)
	}
	expanded, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	if err != nil {
		t.Fatal(err)
	}
	defer expanded.Close(ctx)
	classic, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer classic.Close(ctx)
	set := func(d bson.D) {
		t.Helper()
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: d}}); err != nil {
			t.Fatal(err)
		}
	}
	set(bson.D{{Key: "a.1", Value: 2}})
	set(bson.D{{Key: "arr.0.1", Value: 2}})
	set(bson.D{{Key: "plain", Value: 2}, {Key: "arr.1", Value: 8}})

	for i, want := range []string{
		`{"a.1": ["a","1"]}`,
		`{"arr.0.1": ["arr",{"$numberInt":"0"},"1"]}`,
		`{}`, // an array index alone is not ambiguous
	} {
		ev := next(t, expanded)
		got, err := ev.LookupErr("updateDescription", "disambiguatedPaths")
		if err != nil || got.Type != bson.TypeEmbeddedDocument || got.Document().String() != want {
			t.Fatalf("update %d: disambiguatedPaths = %v, want %s (event %v)", i, got, want, ev)
		}
		if ev := next(t, classic); has(ev, "updateDescription", "disambiguatedPaths") {
			t.Fatalf("update %d without showExpandedEvents has disambiguatedPaths: %v", i, ev)
		}
	}

	// A field name with a dot (set with $setField, as $set cannot) is
	// ambiguous at the top level too.
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, mongo.Pipeline{
		{{Key: "$replaceWith", Value: bson.D{{Key: "$setField", Value: bson.D{
			{Key: "field", Value: "x.y"}, {Key: "input", Value: "$$ROOT"}, {Key: "value", Value: 1},
		}}}}},
	}); err != nil {
		t.Fatal(err)
	}
	ev := next(t, expanded)
	if got := ev.Lookup("updateDescription", "disambiguatedPaths").Document().String(); got != `{"x.y": ["x.y"]}` {
		t.Fatalf("dotted field: disambiguatedPaths = %s (event %v)", got, ev)
	}
}

// collUUID reads a collection's UUID from listCollections.
func collUUID(t *testing.T, db *mongo.Database, name string) bson.Binary {
	t.Helper()
	ctx := testenv.Ctx(t)
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: name}})
	if err != nil || len(specs) != 1 || specs[0].UUID == nil {
		t.Fatalf("listCollections %s: %v %v", name, specs, err)
	}
	return *specs[0].UUID
}

// TestRenameOperationDescription: with showExpandedEvents a rename
// event's operationDescription has the target namespace, and, when the
// rename replaced an existing collection (dropTarget), dropTarget: that
// collection's UUID, as mongod's does. As in mongod, the replaced
// collection has no drop event of its own: the oplog has one
// renameCollection entry, and a stream on the replaced collection sees
// the rename, then invalidate.
func TestRenameOperationDescription(t *testing.T) {
	_, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	for _, n := range []string{"src", "target"} {
		if err := db.CreateCollection(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	targetUUID := collUUID(t, db, "target")
	cs, err := db.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetShowExpandedEvents(true))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	onTarget, err := db.Collection("target").Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer onTarget.Close(ctx)
	admin := db.Client().Database("admin")
	rename := func(from, to string, dropTarget bool) {
		t.Helper()
		if err := admin.RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "test." + from},
			{Key: "to", Value: "test." + to}, {Key: "dropTarget", Value: dropTarget}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	rename("src", "target", true)
	rename("target", "fresh", false)

	ev := next(t, cs)
	if opType(ev) != "rename" || str(ev, "ns", "coll") != "src" || str(ev, "to", "coll") != "target" {
		t.Fatalf("rename event = %v", ev)
	}
	desc := ev.Lookup("operationDescription").Document()
	if str(desc, "to", "db") != "test" || str(desc, "to", "coll") != "target" {
		t.Fatalf("operationDescription = %v", desc)
	}
	st, data, ok := desc.Lookup("dropTarget").BinaryOK()
	if !ok || st != 4 || !bytesEqual(data, targetUUID.Data) {
		t.Fatalf("operationDescription.dropTarget = %v, want the replaced collection's UUID %x", desc.Lookup("dropTarget"), targetUUID.Data)
	}
	ev = next(t, cs)
	if opType(ev) != "rename" || has(ev, "operationDescription", "dropTarget") ||
		str(ev, "operationDescription", "to", "coll") != "fresh" {
		t.Fatalf("rename without a target: %v", ev)
	}
	if has(ev, "operationDescription", "stayTemp") || has(ev, "operationDescription", "renameCollection") {
		t.Fatalf("rename's operationDescription has the oplog's own fields: %v", ev)
	}

	if ev := next(t, onTarget); opType(ev) != "rename" || str(ev, "ns", "coll") != "src" ||
		str(ev, "to", "coll") != "target" || has(ev, "operationDescription") {
		t.Fatalf("stream on the replaced collection: %v, want the rename", ev)
	}
	if ev := next(t, onTarget); opType(ev) != "invalidate" {
		t.Fatalf("stream on the replaced collection: %v, want invalidate", ev)
	}

	entries, err := db.Client().Database("local").Collection("oplog.rs").Find(ctx,
		bson.D{{Key: "op", Value: "c"}, {Key: "ns", Value: "test.$cmd"}, {Key: "$or", Value: bson.A{
			bson.D{{Key: "o.drop", Value: "target"}}, bson.D{{Key: "o.renameCollection", Value: "test.src"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var logged []bson.Raw
	if err := entries.All(ctx, &logged); err != nil {
		t.Fatal(err)
	}
	if len(logged) != 1 || !has(logged[0], "o", "dropTarget") {
		t.Fatalf("oplog entries of the rename over target: %v, want one renameCollection with dropTarget", logged)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// failGetMore sets the failGetMoreAfterCursorCheckout failpoint.
func failGetMore(t *testing.T, c *mongo.Client, mode any, data bson.D) {
	t.Helper()
	if err := c.Database("admin").RunCommand(testenv.Ctx(t), bson.D{
		{Key: "configureFailPoint", Value: "failGetMoreAfterCursorCheckout"},
		{Key: "mode", Value: mode}, {Key: "data", Value: data},
	}).Err(); err != nil {
		t.Fatal(err)
	}
}

// openCursor runs cmd and returns its cursor id.
func openCursor(t *testing.T, db *mongo.Database, cmd bson.D) int64 {
	t.Helper()
	res, err := db.RunCommand(testenv.Ctx(t), cmd).Raw()
	if err != nil {
		t.Fatal(err)
	}
	id, ok := res.Lookup("cursor", "id").Int64OK()
	if !ok || id == 0 {
		t.Fatalf("no open cursor: %v", res)
	}
	return id
}

// getMore runs one getMore; awaitData for a change stream's cursor.
func getMore(db *mongo.Database, id int64, coll string, awaitData bool) error {
	cmd := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}}
	if awaitData {
		cmd = append(cmd, bson.E{Key: "maxTimeMS", Value: 10})
	}
	return db.RunCommand(context.Background(), cmd).Err()
}

// wantLabels checks an error's code and whether it has each label.
func wantLabels(t *testing.T, what string, err error, code int, labels map[string]bool) {
	t.Helper()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(code) {
		t.Fatalf("%s: got %v, want code %d", what, err, code)
	}
	for l, want := range labels {
		if se.HasErrorLabel(l) != want {
			t.Fatalf("%s: label %s present = %v, want %v (%v)", what, l, !want, want, err)
		}
	}
}

// TestGetMoreErrorLabels: a change stream's getMore failing with a code
// MongoDB lets a driver resume after (a network, not-primary or shutdown
// error, RetryChangeStream, FailedToSatisfyReadPreference, StaleEpoch)
// has the ResumableChangeStreamError label, and the cursor is gone; other
// codes, and other cursors' getMores, do not have it; ChangeStreamFatalError
// has NonResumableChangeStreamError. The errors come from the
// failGetMoreAfterCursorCheckout failpoint, which fails a getMore after
// it has checked out its cursor (its namespace option picks the cursors).
func TestGetMoreErrorLabels(t *testing.T) {
	_, db := testenv.Open(t, lode.WithTestCommands())
	ctx := testenv.Ctx(t)
	coll := db.Collection("lab")
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	stream := func() int64 {
		return openCursor(t, db, bson.D{{Key: "aggregate", Value: "lab"},
			{Key: "pipeline", Value: bson.A{bson.D{{Key: "$changeStream", Value: bson.D{}}}}},
			{Key: "cursor", Value: bson.D{}}})
	}
	resumable := map[string]bool{"ResumableChangeStreamError": true}
	notResumable := map[string]bool{"ResumableChangeStreamError": false}
	// (A not-primary or shutdown code, also labelled, makes the driver
	// wait for its next check of the server; internal/errs tests the
	// whole list.)
	for _, code := range []int{6, 7, 89, 133, 150, 234, 262, 9001} {
		id := stream()
		failGetMore(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "errorCode", Value: code}})
		wantLabels(t, "change stream getMore", getMore(db, id, "lab", true), code, resumable)
		testenv.WantCode(t, "getMore after the failure", getMore(db, id, "lab", true), 43)
	}
	// Not resumable: MaxTimeMSExpired, StaleShardVersion (obsolete since
	// 6.1), InternalError (the failpoint's default).
	for _, code := range []int{50, 63} {
		id := stream()
		failGetMore(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "errorCode", Value: code}})
		wantLabels(t, "change stream getMore", getMore(db, id, "lab", true), code, notResumable)
	}
	id := stream()
	failGetMore(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{})
	wantLabels(t, "failpoint without errorCode", getMore(db, id, "lab", true), 1, notResumable)
	id = stream()
	failGetMore(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "errorCode", Value: 280}})
	wantLabels(t, "ChangeStreamFatalError", getMore(db, id, "lab", true), 280,
		map[string]bool{"NonResumableChangeStreamError": true, "ResumableChangeStreamError": false})

	// A find cursor's getMore fails with the code alone.
	fid := openCursor(t, db, bson.D{{Key: "find", Value: "lab"}, {Key: "batchSize", Value: 1}})
	failGetMore(t, db.Client(), bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "errorCode", Value: 6}})
	wantLabels(t, "find getMore", getMore(db, fid, "lab", false), 6, notResumable)

	// namespace: only getMores of that namespace's cursors fail.
	id = stream()
	failGetMore(t, db.Client(), "alwaysOn", bson.D{{Key: "errorCode", Value: 6}, {Key: "namespace", Value: "test.other"}})
	if err := getMore(db, id, "lab", true); err != nil {
		t.Fatalf("getMore of another namespace failed: %v", err)
	}
	failGetMore(t, db.Client(), "off", bson.D{})
}

// TestStreamResumesAfterResumableError: the driver resumes a change
// stream whose getMore failed with ResumableChangeStreamError, and the
// event comes through; after an error without the label (failCommand
// gives none) it does not.
func TestStreamResumesAfterResumableError(t *testing.T) {
	var aggregates atomic.Int32
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "aggregate" {
			aggregates.Add(1)
		}
	}}
	ldb, _ := testenv.Open(t, lode.WithTestCommands())
	ctx := testenv.Ctx(t)
	client, err := mongo.Connect(options.Client().ApplyURI(ldb.URI()).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	coll := client.Database("test").Collection("resume")
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	failGetMore(t, client, bson.D{{Key: "times", Value: 1}}, bson.D{{Key: "errorCode", Value: 6}})
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	ev := next(t, cs)
	if opType(ev) != "insert" || i32(ev, "fullDocument", "x") != 1 {
		t.Fatalf("event after resuming = %v", ev)
	}
	if n := aggregates.Load(); n != 2 {
		t.Fatalf("%d aggregates, want 2 (the stream and its resumption)", n)
	}

	if err := client.Database("admin").RunCommand(ctx, bson.D{
		{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: bson.D{{Key: "times", Value: 1}}},
		{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"getMore"}}, {Key: "errorCode", Value: 6}}},
	}).Err(); err != nil {
		t.Fatal(err)
	}
	nctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if cs.Next(nctx) {
		t.Fatalf("event after an unlabelled error: %v", cs.Current)
	}
	testenv.WantCode(t, "getMore failed by failCommand", cs.Err(), 6)
}
