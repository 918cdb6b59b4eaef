package views

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestViewAuthorization follows mongod: reading a view needs find on the
// view only (not on its source); creating a view needs createCollection
// and, when the creator can read the view, find on its source; collMod of
// a view needs viewOn and pipeline together under authorization.
func TestViewAuthorization(t *testing.T) {
	t.Parallel()
	ldb, root := testenv.Open(t, lode.WithAuth("root", "rootpwd"))
	ctx := testenv.Ctx(t)
	seed(t, root)
	createView(t, root, "evens", "src", evens)
	priv := func(coll string, acts ...string) bson.D {
		return bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "test"}, {Key: "collection", Value: coll}}}, {Key: "actions", Value: acts}}
	}
	for _, r := range []struct {
		name  string
		privs bson.A
	}{
		{"viewReader", bson.A{priv("evens", "find")}},
		{"viewMaker", bson.A{priv("", "createCollection", "collMod"), priv("mine", "find")}},
	} {
		if _, err := testenv.RunCmd(t, root, bson.D{{Key: "createRole", Value: r.name}, {Key: "privileges", Value: r.privs}, {Key: "roles", Value: bson.A{}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := testenv.RunCmd(t, root, bson.D{{Key: "createUser", Value: r.name}, {Key: "pwd", Value: "pwd"},
			{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: r.name}, {Key: "db", Value: "test"}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(user string) *mongo.Database {
		c, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + testenv.HostPort(ldb)).
			SetAuth(options.Credential{Username: user, Password: "pwd", AuthSource: "test"}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
		return c.Database("test")
	}

	reader := connect("viewReader")
	got := all(t)(reader.Collection("evens").Find(ctx, bson.D{}, options.Find().SetBatchSize(2))) // with getMores
	if len(got) != 5 {
		t.Errorf("reader sees %d docs through the view, want 5", len(got))
	}
	if n, err := reader.Collection("evens").CountDocuments(ctx, bson.D{}); err != nil || n != 5 {
		t.Errorf("reader counts %d %v", n, err)
	}
	_, err := reader.Collection("src").Find(ctx, bson.D{})
	testenv.WantCode(t, "find on the source", err, 13)

	maker := connect("viewMaker")
	// It can read "mine", so it must be able to read the source: it cannot.
	_, err = maker.RunCommand(ctx, bson.D{{Key: "create", Value: "mine"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{}}}).Raw()
	testenv.WantCode(t, "create a readable view on an unreadable source", err, 13)
	// A view it cannot read exposes nothing: allowed.
	if err := maker.RunCommand(ctx, bson.D{{Key: "create", Value: "blind"}, {Key: "viewOn", Value: "src"}, {Key: "pipeline", Value: bson.A{}}}).Err(); err != nil {
		t.Errorf("create an unreadable view: %v", err)
	}
	err = maker.RunCommand(ctx, bson.D{{Key: "collMod", Value: "blind"}, {Key: "viewOn", Value: "src"}}).Err()
	testenv.WantCode(t, "collMod viewOn without pipeline", err, 72)
}
