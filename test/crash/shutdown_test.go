package crash

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestServeShutsDownCleanlyOnSignal runs the built `lode serve` binary,
// writes with w:1 (acknowledged before any fsync), sends SIGTERM and then,
// on the next run, SIGINT, and checks that the process exits with status 0
// and that every write is there after a restart.
func TestServeShutsDownCleanlyOnSignal(t *testing.T) {
	tmp := t.TempDir()
	bin := buildLode(t)
	dataDir := filepath.Join(tmp, "data")
	ctx := context.Background()
	connect := func(addr string) *mongo.Client {
		client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true").
			SetTimeout(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return client
	}
	for round, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd, addr := startServer(t, bin, dataDir)
		client := connect(addr)
		coll := client.Database("shutdown").Collection("docs",
			options.Collection().SetWriteConcern(writeconcern.W1()))
		docs := make([]any, 500)
		for i := range docs {
			docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("r%d-%d", round, i)}, {Key: "round", Value: round}}
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("r%d-0", round)}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "updated", Value: true}}}}); err != nil {
			t.Fatal(err)
		}
		client.Disconnect(ctx)
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil || cmd.ProcessState.ExitCode() != 0 {
				t.Fatalf("%v: lode serve exited with %v (code %d), want a clean exit 0", sig, err, cmd.ProcessState.ExitCode())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: lode serve did not exit", sig)
		}
	}
	// Restart: both rounds' writes are there.
	cmd, addr := startServer(t, bin, dataDir)
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	client := connect(addr)
	defer client.Disconnect(ctx)
	coll := client.Database("shutdown").Collection("docs")
	n, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || n != 1000 {
		t.Fatalf("after restart: %d documents (%v), want 1000", n, err)
	}
	for round := 0; round < 2; round++ {
		var doc bson.M
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("r%d-0", round)}}).Decode(&doc); err != nil || doc["updated"] != true {
			t.Fatalf("round %d update lost: %v %v", round, doc, err)
		}
	}
}
