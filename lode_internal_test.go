package lode

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/server"
)

// TestClosedInstanceIsCollected opens an instance, exercises what used to
// register it in package state (commands tracked for currentOp,
// setDefaultRWConcern, setParameter, a capped collection, a
// $currentDate timestamp), closes it, and checks that its server and
// engine are garbage-collected: nothing outside the instance keeps them.
func TestClosedInstanceIsCollected(t *testing.T) {
	srv, eng := openUseAndClose(t)
	for i := 0; i < 20 && (srv.Value() != nil || eng.Value() != nil); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if srv.Value() != nil {
		t.Error("the closed instance's server is still reachable")
	}
	if eng.Value() != nil {
		t.Error("the closed instance's engine is still reachable")
	}
}

// openUseAndClose returns weak pointers to the server and engine of an
// instance it opened, used and closed; no strong reference survives it.
func openUseAndClose(t *testing.T) (weak.Pointer[server.Server], weak.Pointer[engine.Engine]) {
	t.Helper()
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := db.Client().Database("admin")
	app := db.Client().Database("app")
	for _, cmd := range []struct {
		db  string
		cmd bson.D
	}{
		{"admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "internalQueryMaxBlockingSortMemoryUsageBytes", Value: 4096}}},
		{"admin", bson.D{{Key: "setDefaultRWConcern", Value: 1}, {Key: "defaultWriteConcern", Value: bson.D{{Key: "w", Value: 1}}}}},
		{"admin", bson.D{{Key: "currentOp", Value: 1}}},
		{"app", bson.D{{Key: "create", Value: "capped"}, {Key: "capped", Value: true}, {Key: "size", Value: 4096}}},
	} {
		d := admin
		if cmd.db == "app" {
			d = app
		}
		if err := d.RunCommand(ctx, cmd.cmd).Err(); err != nil {
			t.Fatalf("%v: %v", cmd.cmd, err)
		}
	}
	capped := app.Collection("capped")
	for i := 0; i < 100; i++ {
		if _, err := capped.InsertOne(ctx, bson.D{{Key: "i", Value: i}, {Key: "pad", Value: "................................................................"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := app.Collection("c").UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}},
		bson.D{{Key: "$currentDate", Value: bson.D{{Key: "ts", Value: bson.D{{Key: "$type", Value: "timestamp"}}}}}},
		options.UpdateOne().SetUpsert(true)); err != nil {
		t.Fatal(err)
	}
	srv, eng := weak.Make(db.srv), weak.Make(db.eng)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return srv, eng
}
