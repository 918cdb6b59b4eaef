package admin_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// currentOpAgg runs {aggregate: 1, pipeline: [{$currentOp: opts}, {$match:
// match}]} on admin and returns the entries.
func currentOpAgg(t *testing.T, admin *mongo.Database, opts, match bson.D) []bson.Raw {
	t.Helper()
	pipe := mongo.Pipeline{{{Key: "$currentOp", Value: opts}}, {{Key: "$match", Value: match}}}
	cur, err := admin.Aggregate(context.Background(), pipe)
	if err != nil {
		t.Fatalf("$currentOp: %v", err)
	}
	var out []bson.Raw
	if err := cur.All(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCurrentOpStage: the $currentOp aggregation stage lists a getMore
// waiting on a tailable cursor (killOp then interrupts it with 11601),
// idle connections, cursors and transactions on request, and rejects the
// placements and options MongoDB rejects.
func TestCurrentOpStage(t *testing.T) {
	t.Parallel()
	db, d := testenv.Open(t)
	ctx := context.Background()
	admin := db.Client().Database("admin")
	coll := testenv.CreateCapped(t, d, "events", 1<<20, 0)
	if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "x", Value: 1}}, bson.D{{Key: "x", Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	tail, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close(ctx)
	for i := 0; i < 2; i++ {
		if !tail.Next(ctx) {
			t.Fatal(tail.Err())
		}
	}
	done := make(chan error, 1)
	go func() {
		if tail.TryNext(ctx) {
			done <- errors.New("unexpected document")
			return
		}
		done <- tail.Err()
	}()
	var op bson.Raw
	for deadline := time.Now().Add(5 * time.Second); op == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ops := currentOpAgg(t, admin, bson.D{{Key: "allUsers", Value: true}},
			bson.D{{Key: "op", Value: "getmore"}, {Key: "ns", Value: "test.events"}})
		if len(ops) == 1 {
			op = ops[0]
		}
	}
	if op == nil {
		t.Fatal("the waiting getMore is not listed by $currentOp")
	}
	if !op.Lookup("active").Boolean() || op.Lookup("type").StringValue() != "op" ||
		op.Lookup("command", "getMore").Type != bson.TypeInt64 {
		t.Errorf("getMore entry: %v", op)
	}
	// The aggregate itself is running, so it lists itself.
	if self := currentOpAgg(t, admin, bson.D{}, bson.D{{Key: "command.aggregate", Value: 1}, {Key: "ns", Value: "admin.$cmd"}}); len(self) != 1 {
		t.Errorf("$currentOp does not list its own aggregate: %v", self)
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: op.Lookup("opid").Int32()}}).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(11601) {
			t.Fatalf("killed getMore: want Interrupted, got %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("killed getMore did not return")
	}

	// Idle connections appear, inactive, only with idleConnections.
	other, err := mongo.Connect(options.Client().ApplyURI(db.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Disconnect(ctx)
	if err := other.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	inactive := bson.D{{Key: "active", Value: false}, {Key: "type", Value: "op"}}
	if n := len(currentOpAgg(t, admin, bson.D{}, inactive)); n != 0 {
		t.Errorf("%d inactive entries without idleConnections", n)
	}
	if n := len(currentOpAgg(t, admin, bson.D{{Key: "idleConnections", Value: true}}, inactive)); n < 1 {
		t.Error("no inactive connection listed with idleConnections: true")
	}

	// An open cursor between batches is an idleCursor.
	plain, err := d.Collection("plain").InsertMany(ctx, []any{bson.D{{Key: "a", Value: 1}}, bson.D{{Key: "a", Value: 2}}, bson.D{{Key: "a", Value: 3}}})
	if err != nil || len(plain.InsertedIDs) != 3 {
		t.Fatal(err)
	}
	open, err := d.Collection("plain").Find(ctx, bson.D{}, options.Find().SetBatchSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close(ctx)
	idleCur := bson.D{{Key: "type", Value: "idleCursor"}, {Key: "ns", Value: "test.plain"}}
	if n := len(currentOpAgg(t, admin, bson.D{}, idleCur)); n != 0 {
		t.Errorf("%d idle cursors listed without idleCursors", n)
	}
	cs := currentOpAgg(t, admin, bson.D{{Key: "idleCursors", Value: true}}, idleCur)
	if len(cs) != 1 || cs[0].Lookup("cursor", "cursorId").Int64() != open.ID() {
		t.Errorf("idleCursors: %v (cursor %d)", cs, open.ID())
	}

	// A transaction between statements is an idleSession (listed by default).
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if err := sess.StartTransaction(); err != nil {
		t.Fatal(err)
	}
	sctx := mongo.NewSessionContext(ctx, sess)
	if _, err := d.Collection("plain").InsertOne(sctx, bson.D{{Key: "a", Value: 4}}); err != nil {
		t.Fatal(err)
	}
	idleSess := bson.D{{Key: "type", Value: "idleSession"}}
	if ss := currentOpAgg(t, admin, bson.D{}, idleSess); len(ss) != 1 || ss[0].Lookup("transaction", "parameters", "autocommit").Boolean() {
		t.Errorf("idle transaction: %v", ss)
	}
	if n := len(currentOpAgg(t, admin, bson.D{{Key: "idleSessions", Value: false}}, idleSess)); n != 0 {
		t.Errorf("%d idle sessions listed with idleSessions: false", n)
	}
	_ = sess.AbortTransaction(ctx)

	// Placement and option errors, as MongoDB reports them.
	for _, tc := range []struct {
		db   *mongo.Database
		cmd  bson.D
		code int32
	}{
		{admin, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{}}}, bson.D{{Key: "$currentOp", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}}, 40602},
		{admin, bson.D{{Key: "aggregate", Value: "coll"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}}, 73},
		{d, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{}}}}}, {Key: "cursor", Value: bson.D{}}}, 73},
		{admin, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{{Key: "bogus", Value: true}}}}}}, {Key: "cursor", Value: bson.D{}}}, 9},
		{admin, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: bson.D{{Key: "allUsers", Value: 1}}}}}}, {Key: "cursor", Value: bson.D{}}}, 9},
		{admin, bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$currentOp", Value: 1}}}}, {Key: "cursor", Value: bson.D{}}}, 9},
	} {
		err := tc.db.RunCommand(ctx, tc.cmd).Err()
		var ce mongo.CommandError
		if !errors.As(err, &ce) || ce.Code != tc.code {
			t.Errorf("%v: got %v, want code %d", tc.cmd, err, tc.code)
		}
	}
}

// TestCurrentOpCommandAll: the currentOp command lists idle connections
// (active: false) only with $all: true, as mongod does.
func TestCurrentOpCommandAll(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	ctx := context.Background()
	other, err := mongo.Connect(options.Client().ApplyURI(db.URI()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Disconnect(ctx)
	if err := other.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	admin := db.Client().Database("admin")
	for _, all := range []bool{false, true} {
		var res bson.Raw
		if err := admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "$all", Value: all}, {Key: "active", Value: false}}).Decode(&res); err != nil {
			t.Fatal(err)
		}
		vals, _ := res.Lookup("inprog").Array().Values()
		if all && len(vals) < 1 || !all && len(vals) != 0 {
			t.Errorf("$all: %v: %d inactive entries: %v", all, len(vals), res)
		}
	}
}
