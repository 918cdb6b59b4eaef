package agg_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/params"
	"github.com/lodedb/lode/internal/server"
)

// openDB opens an embedded Lode and returns database name through the
// official Go driver.
func openDB(t *testing.T, name string) *mongo.Database {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Client().Database(name)
}

// openInstance opens an engine and serves it on a loopback port, as
// lode.Open does, and returns database name through the official Go
// driver with the instance's parameters and counters, which lode.DB does
// not expose.
func openInstance(t *testing.T, name string) (*mongo.Database, *params.Set) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	srv := server.New(eng, server.Config{Logger: log})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + ln.Addr().String() + "/?directConnection=true"))
	t.Cleanup(func() {
		if client != nil {
			_ = client.Disconnect(context.Background())
		}
		_ = srv.Close()
		<-done
		eng.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return client.Database(name), eng.Params()
}

// ejson parses relaxed extended JSON into a bson.A (for arrays) or bson.D.
func ejson(t *testing.T, js string) any {
	t.Helper()
	var w struct {
		V any `bson:"v"`
	}
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+js+`}`), false, &w); err != nil {
		t.Fatalf("parse %s: %v", js, err)
	}
	return w.V
}

// insertJS inserts the documents of a JSON array into coll.
func insertJS(t *testing.T, coll *mongo.Collection, js string) {
	t.Helper()
	docs := ejson(t, js).(bson.A)
	if _, err := coll.InsertMany(context.Background(), []any(docs)); err != nil {
		t.Fatal(err)
	}
}

// aggJS runs a pipeline given as JSON and returns the documents as
// canonical extended JSON strings (numeric types visible).
func aggJS(t *testing.T, coll *mongo.Collection, pipeline string, opts ...options.Lister[options.AggregateOptions]) ([]string, error) {
	t.Helper()
	cur, err := coll.Aggregate(context.Background(), ejson(t, pipeline), opts...)
	if err != nil {
		return nil, err
	}
	defer cur.Close(context.Background())
	var out []string
	for cur.Next(context.Background()) {
		out = append(out, canonical(t, cur.Current))
	}
	return out, cur.Err()
}

// canonical renders a document as canonical extended JSON.
func canonical(t *testing.T, raw bson.Raw) string {
	t.Helper()
	b, err := bson.MarshalExtJSON(raw, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantJS compares results with expected documents written in JSON,
// converted to canonical extended JSON: numeric types must match.
func wantJS(t *testing.T, got []string, want string) {
	t.Helper()
	wa := ejson(t, want).(bson.A)
	if len(got) != len(wa) {
		t.Fatalf("got %d documents, want %d\ngot:  %v\nwant: %s", len(got), len(wa), got, want)
	}
	for i, w := range wa {
		raw, err := bson.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		if c := canonical(t, raw); c != got[i] {
			t.Fatalf("document %d\ngot:  %s\nwant: %s", i, got[i], c)
		}
	}
}

// wantServerCode checks that err is a server error with code.
func wantServerCode(t *testing.T, err error, code int32) {
	t.Helper()
	var se mongo.ServerError
	if err == nil {
		t.Fatalf("got no error, want code %d", code)
	}
	if !asServerError(err, &se) || !se.HasErrorCode(int(code)) {
		t.Fatalf("got %v, want code %d", err, code)
	}
}

func asServerError(err error, se *mongo.ServerError) bool {
	switch e := err.(type) {
	case mongo.CommandError:
		*se = e
		return true
	case mongo.WriteException:
		*se = e
		return true
	case mongo.ServerError:
		*se = e
		return true
	}
	return false
}
