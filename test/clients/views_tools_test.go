package clients

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestToolsDumpRestoreViews: mongodump writes a view as its definition
// (listCollections' type "view" and options), and mongorestore recreates
// it with create {viewOn, pipeline}, into another database, where reads
// through it return what they did at the source.
func TestToolsDumpRestoreViews(t *testing.T) {
	t.Parallel()
	tools := toolsDir(t, "mongorestore")
	s := startServer(t)
	c := connect(t, s)
	ctx := context.Background()
	src := c.Database("vsrc")
	for i := 0; i < 20; i++ {
		if _, err := src.Collection("items").InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "n", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	pipeline := bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$gte", Value: 15}}}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "n", Value: 1}}}}}
	if err := src.RunCommand(ctx, bson.D{{Key: "create", Value: "big"}, {Key: "viewOn", Value: "items"}, {Key: "pipeline", Value: pipeline}}).Err(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mongodump", "--db", "vsrc", "-o", dir},
		{"mongorestore", "--nsFrom", "vsrc.*", "--nsTo", "vdst.*", dir},
	} {
		out, err := runTool(t, tools, args[0], append([]string{"--uri", s.uri()}, args[1:]...)...)
		if err != nil || strings.Contains(out, "Failed") {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	dst := c.Database("vdst")
	specs, err := dst.ListCollectionSpecifications(ctx, bson.D{{Key: "name", Value: "big"}})
	if err != nil || len(specs) != 1 || specs[0].Type != "view" {
		t.Fatalf("restored view: %v %v", specs, err)
	}
	if on := specs[0].Options.Lookup("viewOn").StringValue(); on != "items" {
		t.Errorf("restored viewOn %q", on)
	}
	n, err := dst.Collection("big").CountDocuments(ctx, bson.D{})
	if err != nil || n != 5 {
		t.Errorf("count through the restored view: %d %v, want 5", n, err)
	}
	if _, err := filepath.Glob(filepath.Join(dir, "vsrc", "big.metadata.json")); err != nil {
		t.Error(err)
	}
}
