package changestreams

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestWatchNeedsChangeStreamAndFind: under authorization a stream needs
// mongod's changeStream and find actions on what it watches: the read
// role has both on its database; a role with find alone is refused (13),
// and so is a stream on another database or the whole deployment.
func TestWatchNeedsChangeStreamAndFind(t *testing.T) {
	ldb, _ := testenv.Open(t, lode.WithAuth("root", "root-pwd"))
	ctx := testenv.Ctx(t)
	admin := ldb.Client().Database("admin")
	run := func(cmd bson.D) {
		t.Helper()
		if err := admin.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatal(err)
		}
	}
	run(bson.D{{Key: "createRole", Value: "findOnly"}, {Key: "privileges", Value: bson.A{
		bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: ""}}}, {Key: "actions", Value: bson.A{"find"}}},
	}}, {Key: "roles", Value: bson.A{}}})
	run(bson.D{{Key: "createUser", Value: "reader"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}}}})
	run(bson.D{{Key: "createUser", Value: "finder"}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{"findOnly"}}})
	as := func(user string) *mongo.Client {
		c, err := mongo.Connect(options.Client().ApplyURI(ldb.URI()).SetServerSelectionTimeout(5 * time.Second).
			SetAuth(options.Credential{Username: user, Password: "pw", AuthSource: "admin"}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Disconnect(ctx) })
		return c
	}
	reader, finder := as("reader"), as("finder")
	cs, err := reader.Database("app").Collection("c").Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatalf("read role cannot watch its collection: %v", err)
	}
	cs.Close(ctx)
	cs, err = reader.Database("app").Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatalf("read role cannot watch its database: %v", err)
	}
	cs.Close(ctx)
	_, err = reader.Database("other").Collection("c").Watch(ctx, mongo.Pipeline{})
	testenv.WantCode(t, "watch another database", err, 13)
	_, err = reader.Watch(ctx, mongo.Pipeline{})
	testenv.WantCode(t, "watch the deployment", err, 13)
	_, err = finder.Database("app").Collection("c").Watch(ctx, mongo.Pipeline{})
	testenv.WantCode(t, "watch with find alone", err, 13)
	if err := finder.Database("app").Collection("c").FindOne(ctx, bson.D{}).Err(); err != nil && err != mongo.ErrNoDocuments {
		t.Fatalf("find with find: %v", err)
	}
}
