package admin_test

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// TestCompact runs compact through the Go driver: mongod 7.0's reply
// {bytesFreed: <int>, ok: 1}, the space of deleted documents and their
// index entries given back, the documents and indexes intact, and the
// refusals (a primary without force, a view, a missing collection, a
// non-string name, an 8.0-only option).
func TestCompact(t *testing.T) {
	ldb, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	coll := db.Collection("c")
	n := testenv.Size(3000, 100000)
	testenv.InsertBatches(t, coll, n, func(i int) any {
		return bson.D{{Key: "_id", Value: i}, {Key: "k", Value: strings.Repeat("k", 100) + string(rune('a'+i%26))}, {Key: "pad", Value: strings.Repeat("x", 300)}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "k", Value: 1}})
	admin := ldb.Client().Database("admin")
	// The documents are flushed to the data files, then deleted: the
	// deletions are still in memory when compact runs, so no background
	// compaction can have given the space back before it.
	runOK(t, admin, bson.D{{Key: "fsync", Value: 1}})
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 10}}}}); err != nil {
		t.Fatal(err)
	}

	// Lode is a one-member replica set's primary: mongod refuses compact
	// there without force.
	_, err := testenv.RunCmd(t, db, bson.D{{Key: "compact", Value: "c"}})
	ce := testenv.WantCmdError(t, err, 20, "IllegalOperation")
	if !strings.Contains(ce.Message, "use force:true to force") {
		t.Errorf("message %q", ce.Message)
	}
	r, err := testenv.RunCmd(t, db, bson.D{{Key: "compact", Value: "c"}, {Key: "force", Value: true}, {Key: "comment", Value: "x"}})
	testenv.WantOK(t, r, err)
	freed := testenv.Field(t, r, "bytesFreed")
	if freed.Type != bson.TypeInt32 {
		t.Fatalf("bytesFreed is %v, want an int (mongod's appendNumber below 2^30): %v", freed.Type, r)
	}
	// The deleted documents took about n*400 bytes before compression
	// (about n*90 on disk, compressed, with their index entries):
	// compaction must give back a good part of it.
	if got := freed.Int32(); got < int32(n*20) {
		t.Errorf("bytesFreed = %d after deleting %d documents of ~400 bytes, want at least %d", got, n-10, n*20)
	}
	if got := testenv.Count(t, coll, bson.D{}); got != 10 {
		t.Errorf("%d documents after compact, want 10", got)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "k", Value: bson.D{{Key: "$gt", Value: ""}}}}, options.Find().SetHint(bson.D{{Key: "k", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil || len(docs) != 10 {
		t.Errorf("index scan after compact: %d documents, %v; want 10", len(docs), err)
	}
	// Validate agrees the index and the records still match.
	r, err = testenv.RunCmd(t, db, bson.D{{Key: "validate", Value: "c"}})
	testenv.WantOK(t, r, err)
	if !testenv.Field(t, r, "valid").Boolean() {
		t.Errorf("validate after compact: %v", r)
	}

	if err := db.CreateView(ctx, "v", "c", bson.A{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  bson.D
		code int32
		name string
	}{
		{bson.D{{Key: "compact", Value: "v"}, {Key: "force", Value: true}}, 166, "CommandNotSupportedOnView"},
		{bson.D{{Key: "compact", Value: "nosuch"}, {Key: "force", Value: true}}, 26, "NamespaceNotFound"},
		{bson.D{{Key: "compact", Value: 1}, {Key: "force", Value: true}}, 73, "InvalidNamespace"},
		{bson.D{{Key: "compact", Value: "c"}, {Key: "force", Value: true}, {Key: "dryRun", Value: true}}, 238, "NotImplemented"},
	} {
		_, err := testenv.RunCmd(t, db, tc.cmd)
		testenv.WantCmdError(t, err, tc.code, tc.name)
	}
}

// TestLogRotateAndShutdownEmbedded: logRotate without a log file (an
// embedded Lode logs through the program's logger) succeeds doing
// nothing, as mongod logging to the console; the shutdown command of an
// embedded Lode is refused with a clear error (the program stops it with
// DB.Close), and both run only on admin.
func TestLogRotateAndShutdownEmbedded(t *testing.T) {
	ldb, db := testenv.Open(t)
	admin := ldb.Client().Database("admin")
	r, err := testenv.RunCmd(t, admin, bson.D{{Key: "logRotate", Value: 1}})
	testenv.WantOK(t, r, err)
	r, err = testenv.RunCmd(t, admin, bson.D{{Key: "logRotate", Value: "server"}})
	testenv.WantOK(t, r, err)
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "logRotate", Value: "audit"}})
	testenv.WantCmdError(t, err, 4, "NoSuchKey")
	_, err = testenv.RunCmd(t, db, bson.D{{Key: "logRotate", Value: 1}})
	testenv.WantCmdError(t, err, 13, "Unauthorized")

	_, err = testenv.RunCmd(t, db, bson.D{{Key: "shutdown", Value: 1}})
	testenv.WantCmdError(t, err, 13, "Unauthorized")
	_, err = testenv.RunCmd(t, admin, bson.D{{Key: "shutdown", Value: 1}, {Key: "force", Value: true}})
	ce := testenv.WantCmdError(t, err, 20, "IllegalOperation")
	if !strings.Contains(ce.Message, "DB.Close") {
		t.Errorf("the refusal %q does not say how an embedded Lode is stopped", ce.Message)
	}
	// Still serving.
	runOK(t, admin, bson.D{{Key: "ping", Value: 1}})
}

// TestOperationsPrivileges: with authorization on, shutdown and
// logRotate need their cluster actions (hostManager has them) and
// compact the compact action on the collection (dbAdmin has it); a
// readWrite user is refused each, as by mongod, and a dbAdmin user the
// cluster ones.
func TestOperationsPrivileges(t *testing.T) {
	ldb, err := lode.Open(t.TempDir(), lode.WithAuth("admin", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ldb.Close() })
	ctx := testenv.Ctx(t)
	root := ldb.Client()
	if _, err := root.Database("A").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct {
		name string
		role bson.D
	}{
		{"rw", bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "A"}}},
		{"dba", bson.D{{Key: "role", Value: "dbAdmin"}, {Key: "db", Value: "A"}}},
		{"ops", bson.D{{Key: "role", Value: "hostManager"}, {Key: "db", Value: "admin"}}},
	} {
		runOK(t, root.Database("admin"), bson.D{{Key: "createUser", Value: u.name}, {Key: "pwd", Value: "pw"}, {Key: "roles", Value: bson.A{u.role}}})
	}
	client := func(user string) *mongo.Client {
		c, err := mongo.Connect(options.Client().ApplyURI(ldb.URI()).SetServerSelectionTimeout(5 * time.Second).
			SetAuth(options.Credential{Username: user, Password: "pw", AuthSource: "admin"}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Disconnect(ctx) })
		return c
	}
	rw, dba, ops := client("rw"), client("dba"), client("ops")
	compact := bson.D{{Key: "compact", Value: "c"}, {Key: "force", Value: true}}
	for _, c := range []*mongo.Client{rw, dba} {
		_, err := testenv.RunCmd(t, c.Database("admin"), bson.D{{Key: "shutdown", Value: 1}})
		testenv.WantCmdError(t, err, 13, "Unauthorized")
		_, err = testenv.RunCmd(t, c.Database("admin"), bson.D{{Key: "logRotate", Value: 1}})
		testenv.WantCmdError(t, err, 13, "Unauthorized")
	}
	_, err = testenv.RunCmd(t, rw.Database("A"), compact)
	testenv.WantCmdError(t, err, 13, "Unauthorized")
	r, err := testenv.RunCmd(t, dba.Database("A"), compact)
	testenv.WantOK(t, r, err)
	r, err = testenv.RunCmd(t, ops.Database("admin"), bson.D{{Key: "logRotate", Value: 1}})
	testenv.WantOK(t, r, err)
	// hostManager may shut the server down: past authorization, an
	// embedded Lode refuses it.
	_, err = testenv.RunCmd(t, ops.Database("admin"), bson.D{{Key: "shutdown", Value: 1}})
	testenv.WantCmdError(t, err, 20, "IllegalOperation")
}

// runOK runs cmd on d and fails the test unless it succeeds.
func runOK(t *testing.T, d *mongo.Database, cmd bson.D) bson.Raw {
	t.Helper()
	r, err := testenv.RunCmd(t, d, cmd)
	testenv.WantOK(t, r, err)
	return r
}

// TestServerStatusOpLatencies: serverStatus.opLatencies has mongod 7.0's
// classes, each {latency (microseconds), ops}, and counts what ran: a
// find among the reads, an insert among the writes, a ping among the
// commands.
func TestServerStatusOpLatencies(t *testing.T) {
	ldb, db := testenv.Open(t)
	ctx := testenv.Ctx(t)
	before := testenv.ServerStatus(t, ldb.Client())
	if _, err := db.Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Collection("c").FindOne(ctx, bson.D{}).Err(); err != nil {
		t.Fatal(err)
	}
	runOK(t, db, bson.D{{Key: "ping", Value: 1}})
	after := testenv.ServerStatus(t, ldb.Client())
	for _, class := range []string{"reads", "writes", "commands", "transactions"} {
		for _, f := range []string{"latency", "ops", "queryableEncryptionLatencyMicros"} {
			if v, err := after.LookupErr("opLatencies", class, f); err != nil || v.Type != bson.TypeInt64 {
				t.Errorf("opLatencies.%s.%s: %v %v, want a long", class, f, v, err)
			}
		}
	}
	for _, class := range []string{"reads", "writes", "commands"} {
		b := before.Lookup("opLatencies", class, "ops").Int64()
		a := after.Lookup("opLatencies", class, "ops").Int64()
		if a <= b {
			t.Errorf("opLatencies.%s.ops %d -> %d: the command of the class was not counted", class, b, a)
		}
	}
}
