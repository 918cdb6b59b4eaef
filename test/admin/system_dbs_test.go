package admin_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestListDatabasesShowsSystemDatabases: as on a running mongod,
// listDatabases (mongosh's `show dbs`) lists admin, config and local
// beside the user's databases, in name order, and its filter and
// nameOnly apply to them.
func TestListDatabasesShowsSystemDatabases(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if _, err := d.Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	names, err := db.Client().ListDatabaseNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"admin", "config", "local", "test"}; !slices.Equal(names, want) {
		t.Errorf("databases %v, want %v", names, want)
	}
	res, err := db.Client().ListDatabases(ctx, bson.D{{Key: "name", Value: "local"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Databases) != 1 || res.Databases[0].Name != "local" || res.Databases[0].Empty {
		t.Errorf("filtered to local: %+v", res.Databases)
	}
	// local holds the oplog, which has the insert's entry.
	if res.Databases[0].SizeOnDisk <= 0 {
		t.Errorf("local's sizeOnDisk %d, want the oplog's bytes", res.Databases[0].SizeOnDisk)
	}
}

// TestDBStatsReportsTheFilesystem: dbStats' fsUsedSize and fsTotalSize
// are the data directory's filesystem, scaled like the other sizes.
func TestDBStatsReportsTheFilesystem(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	ctx := testenv.Ctx(t)
	if _, err := d.Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	stats := func(scale int) (used, total float64) {
		var res struct {
			Used  float64 `bson:"fsUsedSize"`
			Total float64 `bson:"fsTotalSize"`
		}
		if err := d.RunCommand(ctx, bson.D{{Key: "dbStats", Value: 1}, {Key: "scale", Value: scale}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		return res.Used, res.Total
	}
	used, total := stats(1)
	if total <= 0 || used <= 0 || used > total {
		t.Fatalf("fsUsedSize %v, fsTotalSize %v: want 0 < used <= total", used, total)
	}
	_, kTotal := stats(1024)
	if kTotal*1024 > total+1024 || kTotal*1024 < total-1024 {
		t.Errorf("fsTotalSize with scale 1024 is %v, want about %v", kTotal, total/1024)
	}
}

// TestCurrentOpShowsAppName: currentOp shows each connection's appName
// and the client metadata its driver sent in hello, for a running
// command and for an idle connection, as mongod does.
func TestCurrentOpShowsAppName(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	ctx := testenv.Ctx(t)
	app, err := mongo.Connect(options.Client().ApplyURI(db.URI()).SetAppName("inventory-service").SetMaxPoolSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Disconnect(context.Background())
	coll := app.Database("test").Collection("events")
	if err := app.Database("test").CreateCollection(ctx, "events", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	// A getMore waiting on a tailable cursor is the running command.
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(context.Background())
	if !cur.Next(ctx) {
		t.Fatal(cur.Err())
	}
	go cur.TryNext(ctx)
	admin := db.Client().Database("admin")
	var op bson.Raw
	for deadline := time.Now().Add(5 * time.Second); op == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var res bson.Raw
		if err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "ns", Value: "test.events"}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		ops, _ := res.Lookup("inprog").Array().Values()
		if len(ops) > 0 {
			op = ops[0].Document()
		}
	}
	if op == nil {
		t.Fatal("the waiting getMore is not in currentOp")
	}
	if got, _ := op.Lookup("appName").StringValueOK(); got != "inventory-service" {
		t.Errorf("appName %q, want inventory-service: %v", got, op)
	}
	if got, _ := op.Lookup("clientMetadata", "driver", "name").StringValueOK(); got == "" {
		t.Errorf("no clientMetadata.driver.name: %v", op)
	}
	// Idle connections ($all) carry them too.
	var res bson.Raw
	if err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "$all", Value: true}, {Key: "appName", Value: "inventory-service"}}).Decode(&res); err != nil {
		t.Fatal(err)
	}
	ops, _ := res.Lookup("inprog").Array().Values()
	if len(ops) == 0 {
		t.Fatalf("currentOp filtered by appName found nothing: %v", res)
	}
}
