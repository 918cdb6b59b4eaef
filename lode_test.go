package lode

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/server"
)

// open opens Lode on a fresh temporary directory and closes it with the
// test.
func open(t *testing.T, opts ...Option) *DB {
	t.Helper()
	db, err := Open(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestURIServesOtherClients: URI is a loopback mongodb:// URI with
// directConnection=true, and a second client connected through it sees
// what the embedded client wrote.
func TestURIServesOtherClients(t *testing.T) {
	t.Parallel()
	db := open(t)
	uri := db.URI()
	host, ok := strings.CutPrefix(uri, "mongodb://")
	if !ok || !strings.HasSuffix(uri, "/?directConnection=true") {
		t.Fatalf("URI %q", uri)
	}
	host = strings.TrimSuffix(host, "/?directConnection=true")
	if h, port, err := net.SplitHostPort(host); err != nil || h != "127.0.0.1" || port == "0" {
		t.Fatalf("URI %q: host %q port %q (%v), want 127.0.0.1 and a chosen port", uri, h, port, err)
	}
	ctx := context.Background()
	if _, err := db.Client().Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	other, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Disconnect(ctx)
	n, err := other.Database("app").Collection("c").CountDocuments(ctx, bson.D{})
	if err != nil || n != 1 {
		t.Fatalf("second client counts %d documents (%v), want 1", n, err)
	}
}

// TestWithAddr: Open listens on the given address, and a bad one is an
// error that leaves the data directory free for the next Open.
func TestWithAddr(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db := open(t, WithAddr(addr))
	if want := "mongodb://" + addr + "/?directConnection=true"; db.URI() != want {
		t.Fatalf("URI %q, want %q", db.URI(), want)
	}

	dir := t.TempDir()
	if _, err := Open(dir, WithAddr(addr)); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Fatalf("Open on an address in use: %v, want a listen error", err)
	}
	again, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after a failed Open of the same directory: %v", err)
	}
	again.Close()
}

// TestWithClientOptions: the options reach the returned client (here a
// command monitor that sees the client's commands).
func TestWithClientOptions(t *testing.T) {
	t.Parallel()
	var pings atomic.Int64
	mon := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.CommandName == "ping" {
			pings.Add(1)
		}
	}}
	db := open(t, WithClientOptions(options.Client().SetMonitor(mon)))
	if err := db.Client().Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if pings.Load() != 1 {
		t.Fatalf("the monitor saw %d pings, want 1", pings.Load())
	}
}

// TestWithSyncInterval: the write-ahead log is synced every interval in
// the background (serverStatus metrics.lode.syncs grows after a w:1
// write), and not at all within an hour's interval.
func TestWithSyncInterval(t *testing.T) {
	t.Parallel()
	syncs := func(db *DB) int64 {
		var st bson.Raw
		if err := db.Client().Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
			t.Fatal(err)
		}
		return st.Lookup("metrics", "lode", "syncs").AsInt64()
	}
	write := func(db *DB) {
		if _, err := db.Client().Database("app").Collection("c").InsertOne(context.Background(), bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	fast := open(t, WithSyncInterval(10*time.Millisecond))
	before := syncs(fast)
	write(fast)
	for deadline := time.Now().Add(5 * time.Second); syncs(fast) == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no background sync within 5 s at a 10 ms interval")
		}
	}
	slow := open(t, WithSyncInterval(time.Hour))
	before = syncs(slow)
	write(slow)
	time.Sleep(200 * time.Millisecond)
	if n := syncs(slow) - before; n != 0 {
		t.Fatalf("%d syncs within 200 ms at a one-hour interval, want 0", n)
	}
}

// TestCloseTwice: a second Close returns at once with the first's result
// (it used to wait forever for a server that had already stopped).
func TestCloseTwice(t *testing.T) {
	t.Parallel()
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- db.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("second Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second Close hangs")
	}
}

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

// openInternal opens an instance for a test of package lode, which sees
// its engine and server.
func openInternal(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// budgetStatus returns serverStatus lode.memoryBudget.
func budgetStatus(t *testing.T, db *mongo.Database) bson.Raw {
	t.Helper()
	var st bson.Raw
	if err := db.RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Lookup("lode", "memoryBudget").Document()
}

// TestServerMemoryBudget: with a small budget on the instance, a blocking
// sort or a $group that stays under its own 100 MB limit but not under the
// budget fails with 292 without allowDiskUse and spills with it; a request
// too large for the budget gets ExceededMemoryLimit (146) and the
// connection goes on; every reservation is returned afterwards; and
// serverStatus lode.memoryBudget reports the instance's budget.
func TestServerMemoryBudget(t *testing.T) {
	ldb := openInternal(t)
	db := ldb.Client().Database("test")
	budget := ldb.eng.Params().Budget
	c := context.Background()
	coll := db.Collection("budget")
	pad := strings.Repeat("x", 1000)
	docs := make([]any, 0, 1000)
	for i := 0; i < 20_000; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "k", Value: (i * 7919) % 20_000}, {Key: "pad", Value: pad}})
		if len(docs) == cap(docs) {
			if _, err := coll.InsertMany(c, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	budget.SetLimit(8 << 20)
	if got := budgetStatus(t, db).Lookup("limit").Int64(); got != 8<<20 {
		t.Fatalf("serverStatus lode.memoryBudget.limit %d, want %d", got, 8<<20)
	}
	codeOf := func(err error) int {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return int(ce.Code)
		}
		return 0
	}
	count := func(cur *mongo.Cursor, err error) (int, error) {
		if err != nil {
			return 0, err
		}
		n := 0
		for cur.Next(c) {
			n++
		}
		return n, cur.Err()
	}
	// About 20 MB of documents: under the sort's own limit, over the budget.
	sortDocs := bson.D{{Key: "k", Value: 1}}
	if _, err := count(coll.Find(c, bson.D{}, options.Find().SetSort(sortDocs).SetAllowDiskUse(false))); codeOf(err) != 292 || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("find sort over the budget without allowDiskUse: %v, want 292 naming the budget", err)
	}
	if n, err := count(coll.Find(c, bson.D{}, options.Find().SetSort(sortDocs).SetAllowDiskUse(true))); err != nil || n != 20_000 {
		t.Fatalf("find sort with allowDiskUse: %d documents, %v", n, err)
	}
	aggSort := mongo.Pipeline{{{Key: "$sort", Value: sortDocs}}}
	if _, err := count(coll.Aggregate(c, aggSort, options.Aggregate().SetAllowDiskUse(false))); codeOf(err) != 292 {
		t.Fatalf("$sort over the budget without allowDiskUse: %v, want 292", err)
	}
	if n, err := count(coll.Aggregate(c, aggSort, options.Aggregate().SetAllowDiskUse(true))); err != nil || n != 20_000 {
		t.Fatalf("$sort with allowDiskUse: %d documents, %v", n, err)
	}
	group := mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$_id"}, {Key: "p", Value: bson.D{{Key: "$first", Value: "$pad"}}}}}}}
	if _, err := count(coll.Aggregate(c, group, options.Aggregate().SetAllowDiskUse(false))); codeOf(err) != 292 {
		t.Fatalf("$group over the budget without allowDiskUse: %v, want 292", err)
	}
	if n, err := count(coll.Aggregate(c, group, options.Aggregate().SetAllowDiskUse(true))); err != nil || n != 20_000 {
		t.Fatalf("$group with allowDiskUse: %d groups, %v", n, err)
	}
	// A 3 MB insert reserves 12 MB: refused, and the connection serves on.
	big := bson.D{{Key: "_id", Value: "big"}, {Key: "s", Value: strings.Repeat("y", 3<<20)}}
	if _, err := coll.InsertOne(c, big); codeOf(err) != 146 {
		t.Fatalf("3 MB insert over the budget: %v, want 146 ExceededMemoryLimit", err)
	}
	if err := db.RunCommand(c, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping after a refused request: %v", err)
	}
	if used := budget.Used(); used != 0 {
		t.Fatalf("%d bytes still reserved after every operation ended", used)
	}
	st := budgetStatus(t, db)
	if st.Lookup("used").Int64() != 0 || st.Lookup("refused").Int64() != budget.Refused() {
		t.Fatalf("serverStatus lode.memoryBudget %v, want used 0 and refused %d", st, budget.Refused())
	}
	budget.SetLimit(0)
	if _, err := coll.InsertOne(c, big); err != nil {
		t.Fatalf("the same insert without a budget: %v", err)
	}
	if budget.Refused() == 0 {
		t.Fatal("no refusal counted")
	}
}

// TestWithCacheSizeGB checks that the embedded option sets the storage
// engine's block cache (serverStatus lode.storage.blockCacheMaxBytes, read
// through the returned client) and that Open refuses a size out of range.
func TestWithCacheSizeGB(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want int64
	}{
		{nil, 512 << 20},
		{[]Option{WithCacheSizeGB(1.5)}, 3 << 29},
	} {
		db := open(t, append(tc.opts, InProcess())...)
		var st struct {
			Lode struct {
				Storage struct {
					Max int64 `bson:"blockCacheMaxBytes"`
				} `bson:"storage"`
			} `bson:"lode"`
		}
		if err := db.Client().Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
			t.Fatal(err)
		}
		if st.Lode.Storage.Max != tc.want {
			t.Errorf("blockCacheMaxBytes = %d, want %d", st.Lode.Storage.Max, tc.want)
		}
	}
	for _, bad := range []float64{0.1, -1, 10001} {
		_, err := Open(t.TempDir(), WithCacheSizeGB(bad), InProcess())
		if err == nil || !strings.Contains(err.Error(), "WithCacheSizeGB") || !strings.Contains(err.Error(), "between 0.25 and 10000") {
			t.Errorf("WithCacheSizeGB(%v): err = %v, want a refusal naming the range", bad, err)
		}
	}
}
