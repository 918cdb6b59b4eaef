package wire_test

import (
	"context"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
	"github.com/lodedb/lode/test/testenv"
)

// TestClientDisconnectInterruptsOperation: a client sends a long
// aggregation (a $lookup without an index, seconds of work) and closes its
// socket; the server interrupts the operation (mongod's ClientDisconnect)
// instead of running it to the end: it leaves currentOp within a second.
func TestClientDisconnectInterruptsOperation(t *testing.T) {
	// Not parallel: timing: the aggregation must be interrupted within a
	// second of the disconnect.
	ldb, db := testenv.Open(t)
	c := context.Background()
	coll := db.Collection("slow")
	docs := make([]any, 8000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 2000}}
	}
	if _, err := coll.InsertMany(c, docs); err != nil {
		t.Fatal(err)
	}
	addr := testenv.HostPort(ldb)
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	pipeline := bsoncore.NewArrayBuilder().
		AppendDocument(bsoncore.NewDocumentBuilder().AppendDocument("$lookup", bsoncore.NewDocumentBuilder().
			AppendString("from", "slow").AppendString("localField", "k").AppendString("foreignField", "k").AppendString("as", "m").Build()).Build()).
		AppendDocument(bsoncore.NewDocumentBuilder().AppendString("$count", "n").Build()).Build()
	cmd := bsoncore.NewDocumentBuilder().AppendString("aggregate", "slow").AppendArray("pipeline", pipeline).
		AppendDocument("cursor", bsoncore.NewDocumentBuilder().Build()).AppendString("$db", "test").Build()
	if _, err := nc.Write(wire.AppendMsg(nil, 1, 0, 0, cmd)); err != nil {
		t.Fatal(err)
	}
	awaitInterruptOnDisconnect(t, db, nc, "slow")
}

// awaitInterruptOnDisconnect waits until the aggregate on coll, sent on
// nc, shows in currentOp and is still running 200 ms later, closes nc,
// and fails unless the operation leaves currentOp within a second.
func awaitInterruptOnDisconnect(t *testing.T, db *mongo.Database, nc net.Conn, coll string) {
	t.Helper()
	c := context.Background()
	running := func() bool {
		var res bson.Raw
		if err := db.Client().Database("admin").RunCommand(c, bson.D{{Key: "currentOp", Value: 1}, {Key: "command.aggregate", Value: coll}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		ops, _ := res.Lookup("inprog").Array().Values()
		return len(ops) > 0
	}
	deadline := time.Now().Add(5 * time.Second)
	for !running() {
		if time.Now().After(deadline) {
			t.Fatal("the aggregation never showed in currentOp")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // past the watcher's start
	if !running() {
		t.Fatal("the aggregation finished too soon to test an interruption")
	}
	nc.Close()
	closed := time.Now()
	for running() {
		if time.Since(closed) > time.Second {
			t.Fatal("the aggregation still runs a second after its client disconnected")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("interrupted %v after the disconnect", time.Since(closed))
}
