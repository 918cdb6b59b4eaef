package profiler_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestProfilerAuthorization checks mongod's privileges: profile needs
// enableProfiler on the database (dbAdmin has it, read does not), and
// $queryStats queryStatsRead on the cluster (clusterMonitor has it).
func TestProfilerAuthorization(t *testing.T) {
	db, err := lode.Open(t.TempDir(), lode.WithAuth("root", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := testenv.Ctx(t)
	admin := db.Client().Database("admin")
	for _, u := range []struct {
		name string
		role bson.D
	}{
		{"dba", bson.D{{Key: "role", Value: "dbAdmin"}, {Key: "db", Value: "app"}}},
		{"reader", bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}},
		{"monitor", bson.D{{Key: "role", Value: "clusterMonitor"}, {Key: "db", Value: "admin"}}},
	} {
		if err := admin.RunCommand(ctx, bson.D{{Key: "createUser", Value: u.name}, {Key: "pwd", Value: "pw"},
			{Key: "roles", Value: bson.A{u.role}}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(user string) *mongo.Client {
		c, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetAuth(options.Credential{Username: user, Password: "pw", AuthSource: "admin"}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Disconnect(ctx) })
		return c
	}
	dba, reader, monitor := connect("dba"), connect("reader"), connect("monitor")
	if err := dba.Database("app").RunCommand(ctx, bson.D{{Key: "profile", Value: 2}}).Err(); err != nil {
		t.Fatalf("dbAdmin sets the level: %v", err)
	}
	err = reader.Database("app").RunCommand(ctx, bson.D{{Key: "profile", Value: 1}}).Err()
	testenv.WantCmdError(t, err, 13, "Unauthorized")
	err = reader.Database("app").RunCommand(ctx, bson.D{{Key: "profile", Value: -1}}).Err()
	testenv.WantCmdError(t, err, 13, "Unauthorized")
	if err := dba.Database("app").RunCommand(ctx, bson.D{{Key: "profile", Value: -1}}).Err(); err != nil {
		t.Fatalf("dbAdmin reads the level: %v", err)
	}
	pipeline := mongo.Pipeline{{{Key: "$queryStats", Value: bson.D{}}}}
	if _, err := monitor.Database("admin").Aggregate(ctx, pipeline); err != nil {
		t.Fatalf("clusterMonitor reads $queryStats: %v", err)
	}
	_, err = dba.Database("admin").Aggregate(ctx, pipeline)
	testenv.WantCmdError(t, err, 13, "Unauthorized")
	// The profiler records who ran the operation.
	if err := reader.Database("app").Collection("c").FindOne(ctx, bson.D{}).Err(); err != mongo.ErrNoDocuments {
		t.Fatal(err)
	}
	var e bson.M
	if err := dba.Database("app").Collection("system.profile").FindOne(ctx, bson.D{{Key: "op", Value: "query"}}).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e["user"] != "reader@admin" {
		t.Errorf("profile entry user: %v", e)
	}
}
