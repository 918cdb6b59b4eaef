package views

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestViewSurvivesRestart: the view catalog is the system.views
// collection, so a view is still there, and readable, after a restart.
func TestViewSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := db.Client().Database("test")
	seed(t, d)
	createView(t, d, "evens", "src", evens)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d = db.Client().Database("test")
	ctx := testenv.Ctx(t)
	got := all(t)(d.Collection("evens").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})))
	if want := []int{0, 2, 4, 6, 8}; !reflect.DeepEqual(ids(t, got), want) {
		t.Errorf("after restart: %v, want %v", ids(t, got), want)
	}
	names, err := d.ListCollectionNames(ctx, bson.D{{Key: "type", Value: "view"}})
	if err != nil || !reflect.DeepEqual(names, []string{"evens"}) {
		t.Errorf("views after restart: %v %v", names, err)
	}
}

// TestOplogAndChangeStream: as in mongod, creating, modifying and
// dropping a view are an insert, an update and a delete on system.views in
// the oplog, and a change stream with showExpandedEvents reports them as
// the view's create (operationDescription {viewOn, pipeline}), modify and
// drop; without showExpandedEvents it reports none of them.
func TestOplogAndChangeStream(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	expanded, err := d.Watch(ctx, bson.A{}, options.ChangeStream().SetShowExpandedEvents(true))
	if err != nil {
		t.Fatal(err)
	}
	defer expanded.Close(ctx)
	plain, err := d.Watch(ctx, bson.A{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close(ctx)

	createView(t, d, "evens", "src", evens)
	newPipe := bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: 1}}}}}
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "evens"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: newPipe}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Collection("evens").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Collection("marker").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}

	var types []string
	for expanded.Next(ctx) {
		ev := expanded.Current
		op := ev.Lookup("operationType").StringValue()
		types = append(types, op)
		switch op {
		case "create":
			if ev.Lookup("ns", "coll").StringValue() == "evens" {
				if on := ev.Lookup("operationDescription", "viewOn").StringValue(); on != "src" {
					t.Errorf("create event: %v", ev)
				}
				if _, ok := ev.Lookup("operationDescription", "pipeline").ArrayOK(); !ok {
					t.Errorf("create event without pipeline: %v", ev)
				}
			}
		case "modify":
			if ev.Lookup("ns", "coll").StringValue() != "evens" || ev.Lookup("operationDescription", "viewOn").StringValue() != "src" {
				t.Errorf("modify event: %v", ev)
			}
		case "drop":
			if ev.Lookup("ns", "coll").StringValue() != "evens" {
				t.Errorf("drop event: %v", ev)
			}
		}
		if op == "insert" {
			break
		}
	}
	// system.views' own creation is not reported (a system collection);
	// marker's implicit creation is.
	if want := []string{"create", "modify", "drop", "create", "insert"}; !reflect.DeepEqual(types, want) {
		t.Errorf("expanded events %v, want %v", types, want)
	}
	if !plain.Next(ctx) || plain.Current.Lookup("operationType").StringValue() != "insert" {
		t.Errorf("plain stream: first event %v, want marker's insert", plain.Current)
	}

	// The oplog holds the writes to system.views.
	cur, err := d.Client().Database("local").Collection("oplog.rs").Find(ctx, bson.D{{Key: "ns", Value: "test.system.views"}})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for cur.Next(ctx) {
		ops = append(ops, cur.Current.Lookup("op").StringValue())
	}
	if want := []string{"i", "u", "d"}; !reflect.DeepEqual(ops, want) {
		t.Errorf("oplog ops on system.views %v, want %v", ops, want)
	}
}

// TestCreateViewInTransaction: as in mongod, a view cannot be created
// inside a multi-document transaction (263), while reading one can.
func TestCreateViewInTransaction(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "evens", "src", evens)
	sess, err := d.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	sctx := mongo.NewSessionContext(ctx, sess)
	n, err := d.Collection("evens").CountDocuments(sctx, bson.D{})
	if err != nil || n != 5 {
		t.Errorf("count through a view in a transaction: %d %v", n, err)
	}
	err = d.RunCommand(sctx, bson.D{{Key: "create", Value: "v2"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{}}}).Err()
	testenv.WantCode(t, "create a view in a transaction", err, 263)
	_ = sess.AbortTransaction(ctx)
}
