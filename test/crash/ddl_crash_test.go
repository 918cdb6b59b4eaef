package crash

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestKill9KeepsJournaledDDL: a collection or index change acknowledged
// with j:true (or w:"majority") survives a kill -9 that follows at once,
// as a j:true insert does. The background sync is an hour away, and one
// client's run of j:true inserts first puts the log in the mode where a
// lone writer's log bytes wait in the process for the next sync
// (internal/storage/waldirect.go): a change acknowledged without a sync
// of its own is then lost by the kill. (lode migrate builds a copied
// collection's indexes and then records the collection as copied; a
// createIndexes answered before its journal was written left the
// collection without indexes after the target's kill -9.)
func TestKill9KeepsJournaledDDL(t *testing.T) {
	t.Parallel()
	bin := buildLode(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	cmd, addr := startServer(t, bin, dataDir, "--sync-interval", "1h")
	killed := false
	defer func() {
		if !killed {
			stopServer(cmd, syscall.SIGTERM)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connect(t, "mongodb://"+addr+"/?directConnection=true")
	d := c.Database("ddl")
	j := d.Collection("items", options.Collection().SetWriteConcern(writeconcern.Journaled()))
	for i := range 64 {
		if _, err := j.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "a", Value: i % 7}, {Key: "b", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	run := func(what string, cmd bson.D) {
		t.Helper()
		if err := d.RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	jTrue := bson.E{Key: "writeConcern", Value: bson.D{{Key: "j", Value: true}}}
	majority := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}
	// The driver sends the collection's write concern with createIndexes.
	if _, err := j.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	run("createIndexes b_1", bson.D{{Key: "createIndexes", Value: "items"},
		{Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "b", Value: 1}}}, {Key: "name", Value: "b_1"}}}}, majority})
	run("create made", bson.D{{Key: "create", Value: "made"}, jTrue})
	run("create gone", bson.D{{Key: "create", Value: "gone"}, jTrue})
	run("drop gone", bson.D{{Key: "drop", Value: "gone"}, majority})
	run("create before", bson.D{{Key: "create", Value: "before"}, jTrue})
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "renameCollection", Value: "ddl.before"},
		{Key: "to", Value: "ddl.after"}, jTrue}).Err(); err != nil {
		t.Fatalf("renameCollection: %v", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killed = true

	cmd, addr = startServer(t, bin, dataDir, "--sync-interval", "1h")
	defer stopServer(cmd, syscall.SIGTERM)
	c = connect(t, "mongodb://"+addr+"/?directConnection=true")
	d = c.Database("ddl")
	names, err := d.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	if got := fmt.Sprint(names); got != "[after items made]" {
		t.Errorf("collections after kill -9: %s, want [after items made]", got)
	}
	specs, err := d.Collection("items").Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var idx []string
	for _, s := range specs {
		idx = append(idx, s.Name)
	}
	slices.Sort(idx)
	if got := fmt.Sprint(idx); got != "[_id_ a_1 b_1]" {
		t.Errorf("indexes of items after kill -9: %s, want [_id_ a_1 b_1]", got)
	}
	n, err := d.Collection("items").CountDocuments(ctx, bson.D{{Key: "a", Value: 3}}, options.Count().SetHint("a_1"))
	if err != nil || n != 9 {
		t.Errorf("count by a_1 after kill -9: %d, %v; want 9", n, err)
	}
}
