package views

import (
	"context"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// The engine's catalog holds the parsed view definitions: these tests
// change system.views in every way a client can and check that the next
// read of the view, its listCollections entry and the count of dbStats
// follow at once.

// below3 is a view pipeline keeping a < 3.
var below3 = bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$lt", Value: 3}}}}}}}

// readIDs returns the _ids a find on name returns, sorted.
func readIDs(t *testing.T, d *mongo.Database, name string) []int {
	t.Helper()
	docs := all(t)(d.Collection(name).Find(testenv.Ctx(t), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})))
	return ids(t, docs)
}

// viewNames lists the views of d.
func viewNames(t *testing.T, d *mongo.Database) []string {
	t.Helper()
	names, err := d.ListCollectionNames(testenv.Ctx(t), bson.D{{Key: "type", Value: "view"}})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// wantRead checks the _ids a find on name returns (nil: none).
func wantRead(t *testing.T, d *mongo.Database, what, name string, want []int) {
	t.Helper()
	if got := readIDs(t, d, name); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: read of %s %v, want %v", what, name, got, want)
	}
}

// wantViews checks the names listCollections reports as views.
func wantViews(t *testing.T, d *mongo.Database, what string, want []string) {
	t.Helper()
	got := viewNames(t, d)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: views %v, want %v", what, got, want)
	}
}

func TestCollModSeenByNextRead(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "v", "src", evens)
	createView(t, d, "onv", "v", bson.A{}) // a view on the view
	wantRead(t, d, "created", "v", []int{0, 2, 4, 6, 8})
	wantRead(t, d, "created", "onv", []int{0, 2, 4, 6, 8})
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "v"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: below3}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "after collMod", "v", []int{0, 1, 2})
	wantRead(t, d, "after collMod of the view below", "onv", []int{0, 1, 2})
	if n, err := d.Collection("v").CountDocuments(ctx, bson.D{}); err != nil || n != 3 {
		t.Errorf("count after collMod: %d %v", n, err)
	}
	specs, err := d.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "v"}})
	if err != nil || len(specs) != 1 {
		t.Fatalf("listCollections: %v %v", specs, err)
	}
	var opts struct {
		Pipeline []bson.D `bson:"pipeline"`
	}
	if err := bson.Unmarshal(specs[0].Options, &opts); err != nil || len(opts.Pipeline) != 1 || opts.Pipeline[0][0].Key != "$match" ||
		!reflect.DeepEqual(opts.Pipeline[0][0].Value, bson.D{{Key: "a", Value: bson.D{{Key: "$lt", Value: int32(3)}}}}) {
		t.Errorf("listCollections options after collMod: %v %v", specs[0].Options, err)
	}
	// viewOn alone.
	if _, err := d.Collection("other").InsertOne(ctx, bson.D{{Key: "_id", Value: 100}, {Key: "a", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "v"}, {Key: "viewOn", Value: "other"}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "after collMod viewOn", "v", []int{100})
}

func TestDropViewSeenByNextRead(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "v", "src", evens)
	wantRead(t, d, "created", "v", []int{0, 2, 4, 6, 8})
	if err := d.Collection("v").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	// As mongod: a find on a name that is nothing returns no documents.
	wantRead(t, d, "after drop", "v", nil)
	wantViews(t, d, "after drop", nil)
	// The name is free again: for a view with another pipeline...
	createView(t, d, "v", "src", below3)
	wantRead(t, d, "created again", "v", []int{0, 1, 2})
	if err := d.Collection("v").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	// ... and for a collection.
	if _, err := d.Collection("v").InsertOne(ctx, bson.D{{Key: "_id", Value: 42}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "collection of the view's name", "v", []int{42})
}

func TestDropSystemViewsDropsViews(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "v", "src", evens)
	wantRead(t, d, "created", "v", []int{0, 2, 4, 6, 8})
	if err := d.Collection("system.views").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "after dropping system.views", "v", nil)
	wantViews(t, d, "after dropping system.views", nil)
	// A new, empty system.views holds no view.
	if err := d.CreateCollection(ctx, "system.views"); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "system.views created again", "v", nil)
	wantViews(t, d, "system.views created again", nil)
	createView(t, d, "v", "src", below3)
	wantRead(t, d, "created after dropping system.views", "v", []int{0, 1, 2})
}

func TestDropDatabaseDropsViews(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "v", "src", evens)
	wantRead(t, d, "created", "v", []int{0, 2, 4, 6, 8})
	if err := d.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "after dropDatabase", "v", nil)
	wantViews(t, d, "after dropDatabase", nil)
	if err := d.CreateCollection(ctx, "system.views"); err != nil {
		t.Fatal(err)
	}
	wantViews(t, d, "system.views created after dropDatabase", nil)
	seed(t, d)
	wantRead(t, d, "database filled again", "v", nil)
	createView(t, d, "v", "src", below3)
	wantRead(t, d, "created in the new database", "v", []int{0, 1, 2})
	st, err := testenv.RunCmd(t, d, bson.D{{Key: "dbStats", Value: 1}})
	testenv.WantOK(t, st, err)
	if v := testenv.Field(t, st, "views").AsInt64(); v != 1 {
		t.Errorf("dbStats views %d, want 1", v)
	}
}

// TestRenameSystemViews: Lode lets renameCollection move system.views;
// while it does, renaming system.views away takes its views with it, and
// renaming a collection of view documents to system.views makes them
// views.
func TestRenameSystemViews(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	seed(t, d)
	createView(t, d, "v", "src", evens)
	wantRead(t, d, "created", "v", []int{0, 2, 4, 6, 8})
	admin := d.Client().Database("admin")
	rename := func(from, to string) error {
		return admin.RunCommand(testenv.Ctx(t), bson.D{{Key: "renameCollection", Value: d.Name() + "." + from}, {Key: "to", Value: d.Name() + "." + to}}).Err()
	}
	if err := rename("system.views", "saved"); err != nil {
		t.Fatalf("rename system.views away: %v", err)
	}
	wantRead(t, d, "after renaming system.views away", "v", nil)
	wantViews(t, d, "after renaming system.views away", nil)
	// Changed while it is not system.views: the rename back brings the
	// change.
	if _, err := d.Collection("saved").UpdateOne(testenv.Ctx(t), bson.D{{Key: "_id", Value: d.Name() + ".v"}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "pipeline", Value: below3}}}}); err != nil {
		t.Fatal(err)
	}
	if err := rename("saved", "system.views"); err != nil {
		t.Fatalf("rename to system.views: %v", err)
	}
	wantRead(t, d, "after renaming back to system.views", "v", []int{0, 1, 2})
	wantViews(t, d, "after renaming back to system.views", []string{"v"})
}

// TestDirectWritesToSystemViews: a client may write system.views itself
// (mongod allows it to a user with the rights); each write is seen by the
// next read.
func TestDirectWritesToSystemViews(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	sv := d.Collection("system.views")
	id := d.Name() + ".v"
	if _, err := sv.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: evens}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "inserted", "v", []int{0, 2, 4, 6, 8})
	wantViews(t, d, "inserted", []string{"v"})
	if _, err := sv.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pipeline", Value: below3}}}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "updated", "v", []int{0, 1, 2})
	if _, err := sv.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: 9}}}}}}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "replaced", "v", []int{9})
	if _, err := sv.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$unset", Value: bson.D{{Key: "viewOn", Value: ""}}}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "viewOn removed", "v", nil)
	wantViews(t, d, "viewOn removed", nil)
	if _, err := sv.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "viewOn", Value: "src"}}}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "viewOn set again", "v", []int{9})
	if _, err := sv.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "deleted", "v", nil)
	wantViews(t, d, "deleted", nil)
	// findAndModify too.
	if _, err := sv.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: evens}}); err != nil {
		t.Fatal(err)
	}
	if err := sv.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pipeline", Value: below3}}}}).Err(); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "findAndModify", "v", []int{0, 1, 2})
	if err := sv.FindOneAndDelete(ctx, bson.D{{Key: "_id", Value: id}}).Err(); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "findAndModify remove", "v", nil)
}

func TestApplyOpsOnSystemViews(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	seed(t, d)
	ns, id := d.Name()+".system.views", d.Name()+".v"
	applyOps := func(op bson.D) {
		t.Helper()
		r, err := testenv.RunCmd(t, d.Client().Database("admin"), bson.D{{Key: "applyOps", Value: bson.A{op}}})
		testenv.WantOK(t, r, err)
	}
	applyOps(bson.D{{Key: "op", Value: "i"}, {Key: "ns", Value: ns},
		{Key: "o", Value: bson.D{{Key: "_id", Value: id}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: evens}}}})
	wantRead(t, d, "applyOps insert", "v", []int{0, 2, 4, 6, 8})
	applyOps(bson.D{{Key: "op", Value: "u"}, {Key: "ns", Value: ns}, {Key: "o2", Value: bson.D{{Key: "_id", Value: id}}},
		{Key: "o", Value: bson.D{{Key: "_id", Value: id}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: below3}}}})
	wantRead(t, d, "applyOps update", "v", []int{0, 1, 2})
	applyOps(bson.D{{Key: "op", Value: "d"}, {Key: "ns", Value: ns}, {Key: "o", Value: bson.D{{Key: "_id", Value: id}}}})
	wantRead(t, d, "applyOps delete", "v", nil)
	wantViews(t, d, "applyOps delete", nil)
}

// TestSystemViewsWriteInTransaction: a write to system.views inside a
// transaction changes the views when the transaction commits, and never
// when it aborts.
func TestSystemViewsWriteInTransaction(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "v", "src", evens)
	sv := d.Collection("system.views")
	id := d.Name() + ".v"
	inTxn := func(commit bool, before []int, write func(sctx context.Context) error) {
		t.Helper()
		sess, err := d.Client().StartSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.EndSession(ctx)
		if err := sess.StartTransaction(); err != nil {
			t.Fatal(err)
		}
		sctx := mongo.NewSessionContext(ctx, sess)
		if err := write(sctx); err != nil {
			t.Fatal(err)
		}
		// Not yet seen outside the transaction.
		wantRead(t, d, "before the end of the transaction", "v", before)
		if commit {
			err = sess.CommitTransaction(ctx)
		} else {
			err = sess.AbortTransaction(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	setPipe := func(sctx context.Context) error {
		_, err := sv.UpdateOne(sctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pipeline", Value: below3}}}})
		return err
	}
	inTxn(false, []int{0, 2, 4, 6, 8}, setPipe)
	wantRead(t, d, "after abort", "v", []int{0, 2, 4, 6, 8})
	inTxn(true, []int{0, 2, 4, 6, 8}, setPipe)
	wantRead(t, d, "after commit", "v", []int{0, 1, 2})
	inTxn(true, []int{0, 1, 2}, func(sctx context.Context) error {
		_, err := sv.InsertOne(sctx, bson.D{{Key: "_id", Value: d.Name() + ".w"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: evens}})
		return err
	})
	wantRead(t, d, "inserted in a transaction", "w", []int{0, 2, 4, 6, 8})
}

// TestViewChangesSurviveRestart: a restart reads the view definitions as
// the last collMod, drop and create left them.
func TestViewChangesSurviveRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := db.Client().Database("test")
	ctx := testenv.Ctx(t)
	seed(t, d)
	createView(t, d, "kept", "src", evens)
	createView(t, d, "modified", "src", evens)
	createView(t, d, "dropped", "src", evens)
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "modified"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: below3}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Collection("dropped").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d = db.Client().Database("test")
	wantRead(t, d, "after restart", "kept", []int{0, 2, 4, 6, 8})
	wantRead(t, d, "after restart", "modified", []int{0, 1, 2})
	wantRead(t, d, "after restart", "dropped", nil)
	wantViews(t, d, "after restart", []string{"kept", "modified"})
	// And the catalog loaded at open still follows changes.
	if _, err := testenv.RunCmd(t, d, bson.D{{Key: "collMod", Value: "kept"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: below3}}); err != nil {
		t.Fatal(err)
	}
	wantRead(t, d, "collMod after restart", "kept", []int{0, 1, 2})
}
