package server

import (
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

// TestWatchdogInterruptsOnDisconnect: a command blocked longer than
// disconnectCheckDelay gets a watcher, including one that begins after
// the watchdog went to sleep for want of commands, and closing its
// client interrupts it; a quick command never gets one.
func TestWatchdogInterruptsOnDisconnect(t *testing.T) {
	t.Parallel()
	s, addr := listenServer(t, Config{TestCommands: true})
	fp := bsoncore.NewDocumentBuilder().AppendString("configureFailPoint", "failCommand").
		AppendString("mode", "alwaysOn").
		AppendDocument("data", bsoncore.NewDocumentBuilder().
			AppendArray("failCommands", bsoncore.NewArrayBuilder().AppendString("ping").Build()).
			AppendBoolean("blockConnection", true).AppendInt32("blockTimeMS", 20000).Build()).
		AppendString("$db", "admin").Build()

	quick := dialPinger(t, addr)
	if _, err := quick.ping(); err != nil {
		t.Fatal(err)
	}
	if r := run(s, fp); r.Lookup("ok").Double() != 1 {
		t.Fatalf("configureFailPoint: %v", r)
	}
	for _, afterSleep := range []bool{false, true} {
		if afterSleep {
			deadline := time.Now().Add(10 * time.Second)
			for !s.watchIdle.Load() {
				if time.Now().After(deadline) {
					t.Fatal("the watchdog never went to sleep")
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		ping := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
		if _, err := nc.Write(wire.AppendMsg(nil, 1, 0, 0, ping)); err != nil {
			t.Fatal(err)
		}
		var op *runningOp
		var c *conn
		deadline := time.Now().Add(5 * time.Second)
		for c == nil || c.cmdStart.Load() != watching {
			if time.Now().After(deadline) {
				t.Fatalf("after sleep %v: the blocked ping got no watcher", afterSleep)
			}
			time.Sleep(10 * time.Millisecond)
			for _, o := range s.ops().snapshot() {
				if o.name == "ping" {
					op = o
					s.mu.Lock()
					for cc := range s.conns {
						if cc.id == o.connID {
							c = cc
						}
					}
					s.mu.Unlock()
				}
			}
		}
		nc.Close()
		deadline = time.Now().Add(5 * time.Second)
		for !op.disconnected.Load() || op.Err() == nil {
			if time.Now().After(deadline) {
				t.Fatalf("after sleep %v: the ping was not interrupted when its client left", afterSleep)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	s.mu.Lock()
	for c := range s.conns {
		if c.id == 1 && c.cmdStart.Load() != 0 {
			t.Errorf("the quick connection's command start is %d, want 0", c.cmdStart.Load())
		}
	}
	s.mu.Unlock()
}
