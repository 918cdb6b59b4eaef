package embedding_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// listeningSockets returns the inodes of the TCP sockets this process
// has in LISTEN state: /proc/net/tcp{,6} lists every socket of the
// network namespace (other processes' test servers too), so its LISTEN
// entries (state 0A) are matched with this process's descriptors.
func listeningSockets(t *testing.T) map[string]bool {
	t.Helper()
	mine := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		testenv.Skip(t, testenv.GroupProc, fmt.Sprintf("cannot read /proc/self/fd: %v", err))
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(l, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	out := map[string]bool{}
	for _, f := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			testenv.Skip(t, testenv.GroupProc, fmt.Sprintf("cannot read %s: %v", f, err))
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) > 9 && fs[3] == "0A" && mine[fs[9]] {
				out[fs[9]] = true
			}
		}
	}
	return out
}

// TestInProcessOpensNoPort: an InProcess DB serves CRUD, a transaction
// and a cursor over several batches through the official driver without
// listening on any TCP port, and has no URI.
func TestInProcessOpensNoPort(t *testing.T) {
	before := listeningSockets(t)
	db, err := lode.Open(t.TempDir(), lode.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	after := listeningSockets(t)
	for p := range after {
		if !before[p] {
			t.Errorf("InProcess opened a listening socket %s", p)
		}
	}
	if db.URI() != "" {
		t.Errorf("URI() = %q, want \"\" for an in-process DB", db.URI())
	}
	ctx := t.Context()
	coll := db.Client().Database("app").Collection("items")
	docs := make([]any, 250)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "v", Value: i * 2}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Find(ctx, bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: 100}}}}, options.Find().SetBatchSize(20).SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []bson.M
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 200 || got[0]["_id"] != int32(50) {
		t.Fatalf("find over getMore batches: %d docs, first %v", len(got), got[0])
	}
	// A transaction needs sessions and the replica-set hello: both work
	// over the in-memory connection.
	sess, err := db.Client().StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: -2}}}}); err != nil {
			return nil, err
		}
		return coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: 2}}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	var one bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 2}}).Decode(&one); err != nil || one["v"] != int32(6) {
		t.Fatalf("after the transaction: %v %v", one, err)
	}
	// hello reports the in-process address as the member's host.
	var hello bson.Raw
	if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	if me := hello.Lookup("me").StringValue(); me != "in-process:27017" {
		t.Errorf("hello.me = %q", me)
	}
}

// TestInProcessRejectsAddr: WithAddr makes no sense without a port.
func TestInProcessRejectsAddr(t *testing.T) {
	db, err := lode.Open(t.TempDir(), lode.InProcess(), lode.WithAddr("127.0.0.1:0"))
	if err == nil {
		db.Close()
		t.Fatal("InProcess with WithAddr accepted")
	}
}

// TestOpenLockedDirectory: a second Open of a directory in use fails at
// once with an error that says so and matches lode.ErrLocked; after the
// first is closed the directory opens again.
func TestOpenLockedDirectory(t *testing.T) {
	dir := t.TempDir()
	first, err := lode.Open(dir, lode.InProcess())
	if err != nil {
		t.Fatal(err)
	}
	second, err := lode.Open(dir, lode.InProcess())
	if err == nil {
		second.Close()
		first.Close()
		t.Fatal("a second Open of the same directory succeeded")
	}
	if !errors.Is(err, lode.ErrLocked) || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second Open: %v; want lode.ErrLocked saying the directory is in use", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := lode.Open(dir, lode.InProcess())
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	again.Close()
}

// TestOpenAddressInUse: WithAddr on a taken port says the address is in
// use and what to do, and leaves the directory usable.
func TestOpenAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "d")
	_, err = lode.Open(dir, lode.WithAddr(ln.Addr().String()))
	if err == nil || !strings.Contains(err.Error(), "already in use") || !strings.Contains(err.Error(), "WithAddr") {
		t.Fatalf("Open on a taken port: %v", err)
	}
	db, err := lode.Open(dir)
	if err != nil {
		t.Fatalf("the directory stayed locked after a failed Open: %v", err)
	}
	db.Close()
}
