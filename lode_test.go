package lode_test

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
)

// open opens Lode on a fresh temporary directory and closes it with the
// test.
func open(t *testing.T, opts ...lode.Option) *lode.DB {
	t.Helper()
	db, err := lode.Open(t.TempDir(), opts...)
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
	db := open(t, lode.WithAddr(addr))
	if want := "mongodb://" + addr + "/?directConnection=true"; db.URI() != want {
		t.Fatalf("URI %q, want %q", db.URI(), want)
	}

	dir := t.TempDir()
	if _, err := lode.Open(dir, lode.WithAddr(addr)); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Fatalf("Open on an address in use: %v, want a listen error", err)
	}
	again, err := lode.Open(dir)
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
	db := open(t, lode.WithClientOptions(options.Client().SetMonitor(mon)))
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
	syncs := func(db *lode.DB) int64 {
		var st bson.Raw
		if err := db.Client().Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
			t.Fatal(err)
		}
		return st.Lookup("metrics", "lode", "syncs").AsInt64()
	}
	write := func(db *lode.DB) {
		if _, err := db.Client().Database("app").Collection("c").InsertOne(context.Background(), bson.D{{Key: "a", Value: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	fast := open(t, lode.WithSyncInterval(10*time.Millisecond))
	before := syncs(fast)
	write(fast)
	for deadline := time.Now().Add(5 * time.Second); syncs(fast) == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no background sync within 5 s at a 10 ms interval")
		}
	}
	slow := open(t, lode.WithSyncInterval(time.Hour))
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
	db, err := lode.Open(t.TempDir())
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
