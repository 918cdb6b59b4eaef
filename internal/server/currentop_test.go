package server

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/opstats"
)

// TestOpRegistry: a command on a connection and one without are both
// listed while they run and killable by id, their context carries the op
// and its deadline, and neither is listed once it ends; a closed
// connection leaves the registry.
func TestOpRegistry(t *testing.T) {
	s := newTestServer(t)
	cmd := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
	c := &conn{id: 9, s: s}
	onConn := &Request{Name: "ping", DB: "admin", Cmd: cmd, conn: c}
	inProc := &Request{Name: "ping", DB: "admin", Cmd: cmd}
	a := s.beginOp(context.Background(), onConn, time.Hour, time.Now(), nil)
	b := s.beginOp(context.Background(), inProc, 0, time.Now(), &runningOp{})
	if opFrom(a) != a || opstats.HolderFrom(b) != opstats.Holder(b) {
		t.Fatal("an op's context does not carry the op")
	}
	if _, ok := a.Deadline(); !ok {
		t.Fatal("maxTime gave no deadline")
	}
	if _, ok := b.Deadline(); ok {
		t.Fatal("a deadline without maxTime")
	}
	if got := s.ops().snapshot(); len(got) != 2 {
		t.Fatalf("%d ops listed, want 2", len(got))
	}
	for _, op := range []*runningOp{a, b} {
		if !s.ops().kill(op.id) {
			t.Fatalf("op %d not found to kill", op.id)
		}
		if op.Err() != context.Canceled || !op.killed.Load() {
			t.Fatalf("op %d: killed %v, err %v", op.id, op.killed.Load(), op.Err())
		}
	}
	s.endOp(onConn, a)
	s.endOp(inProc, b)
	if got := s.ops().snapshot(); len(got) != 0 {
		t.Fatalf("%d ops listed after they ended", len(got))
	}
	if s.ops().kill(a.id) || s.ops().kill(b.id) {
		t.Fatal("an ended op was killed")
	}
	s.ops().forgetConn(c)
	if n := len(s.ops().conns); n != 0 {
		t.Fatalf("%d connections listed after close", n)
	}
}
