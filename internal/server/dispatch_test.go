package server

import (
	"context"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
)

// A panic inside a handler must become an error reply, not a dead server.
func TestPanicBecomesErrorReply(t *testing.T) {
	register(admin(func(context.Context, *Server, *Request) (bsoncore.Document, error) {
		panic("boom")
	}, anyone(), "lodeTestPanic"))
	defer delete(commands, "lodeTestPanic")
	s := newTestServer(t)
	cmd := bsoncore.NewDocumentBuilder().AppendInt32("lodeTestPanic", 1).AppendString("$db", "admin").Build()
	reply := s.dispatch(context.Background(), nil, cmd, false)
	if ok := reply.Lookup("ok"); ok.Double() != 0 {
		t.Fatalf("ok = %v", ok)
	}
	if code := reply.Lookup("code").Int32(); code != 1 {
		t.Fatalf("code = %d, want 1 InternalError", code)
	}
	if name := reply.Lookup("codeName").StringValue(); name != "InternalError" {
		t.Fatalf("codeName = %q", name)
	}
	// The dispatcher still works afterwards.
	ping := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
	if r := s.dispatch(context.Background(), nil, ping, false); r.Lookup("ok").Double() != 1 {
		t.Fatalf("ping after panic: %v", r)
	}
}

func TestUnknownCommandAndMissingDB(t *testing.T) {
	s := newTestServer(t)
	r := s.dispatch(context.Background(), nil, bsoncore.NewDocumentBuilder().AppendInt32("frobnicate", 1).AppendString("$db", "x").Build(), false)
	if r.Lookup("code").Int32() != 59 || r.Lookup("codeName").StringValue() != "CommandNotFound" ||
		r.Lookup("errmsg").StringValue() != "no such command: 'frobnicate'" {
		t.Fatalf("unknown command reply: %v", r)
	}
	r = s.dispatch(context.Background(), nil, bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).Build(), false)
	if r.Lookup("ok").Double() != 0 {
		t.Fatalf("a command without $db must fail: %v", r)
	}
}

// newTestServer is a server on an engine in a temporary directory.
func newTestServer(t *testing.T) *Server {
	t.Helper()
	eng, err := engine.Open(t.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { s.Close(); eng.Close() })
	return s
}
