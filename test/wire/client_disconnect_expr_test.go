package wire_test

import (
	"context"
	"net"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode/internal/wire"
	"github.com/lodedb/lode/test/testenv"
)

// TestClientDisconnectInterruptsExpression: the aggregation's work is
// one long expression on one document (36 million additions, seconds);
// when its client closes the socket the expression's loop notices and
// the operation leaves currentOp within a second.
func TestClientDisconnectInterruptsExpression(t *testing.T) {
	// Not parallel: timing, as TestClientDisconnectInterruptsOperation.
	ldb, db := testenv.Open(t)
	c := context.Background()
	if _, err := db.Collection("one").InsertOne(c, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", testenv.HostPort(ldb))
	if err != nil {
		t.Fatal(err)
	}
	var pipeline bson.A
	slow := `[{"$project":{"s":{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value",{"$reduce":{"input":{"$range":[0,6000]},"initialValue":0,"in":{"$add":["$$value","$$this"]}}}]}}}}}]`
	if err := bson.UnmarshalExtJSON([]byte(slow), false, &pipeline); err != nil {
		t.Fatal(err)
	}
	cmd, err := bson.Marshal(bson.D{{Key: "aggregate", Value: "one"}, {Key: "pipeline", Value: pipeline},
		{Key: "cursor", Value: bson.D{}}, {Key: "$db", Value: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write(wire.AppendMsg(nil, 1, 0, 0, cmd)); err != nil {
		t.Fatal(err)
	}
	awaitInterruptOnDisconnect(t, db, nc, "one")
}
