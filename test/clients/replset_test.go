package clients

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestServeOplogFlags: lode serve --oplog-size-mb sets the oplog's bound
// (collStats maxSize), 0 turns the oplog off, a negative size is refused
// at start, and --standalone answers the replica-set commands as a mongod
// without --replSet.
func TestServeOplogFlags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	sized := connect(t, startServer(t, "--oplog-size-mb", "1000"))
	var st bson.M
	if err := sized.Database("local").RunCommand(ctx, bson.D{{Key: "collStats", Value: "oplog.rs"}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st["maxSize"] != int64(1000<<20) || st["capped"] != true {
		t.Fatalf("collStats local.oplog.rs = %v", st)
	}

	off := connect(t, startServer(t, "--oplog-size-mb", "0"))
	if _, err := off.Database("app").Collection("c").InsertOne(ctx, bson.D{}); err != nil {
		t.Fatal(err)
	}
	names, err := off.Database("local").ListCollectionNames(ctx, bson.D{})
	if err != nil || len(names) != 0 {
		t.Fatalf("local with the oplog off: %v, %v", names, err)
	}

	out, err := exec.Command(lodeBin, "serve", "--addr", "127.0.0.1:0", "--dir", t.TempDir(), "--oplog-size-mb", "-1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--oplog-size-mb") {
		t.Fatalf("lode serve --oplog-size-mb -1: %v\n%s", err, out)
	}

	standalone := connect(t, startServer(t, "--standalone"))
	err = standalone.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Err()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(76) {
		t.Fatalf("replSetGetStatus on a standalone server: %v, want NoReplicationEnabled (76)", err)
	}
}
