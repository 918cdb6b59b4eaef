package security

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// sentCmd is one command a client sent: its name and whether it carried
// speculativeAuthenticate (a hello doing saslStart's work).
type sentCmd struct {
	name        string
	speculative bool
}

func (c sentCmd) String() string {
	if c.speculative {
		return c.name + "+speculativeAuthenticate"
	}
	return c.name
}

// wireRecorder is a TCP proxy in front of a server that records, for
// each client connection, the commands the client sends (OP_MSG and the
// OP_QUERY of a legacy handshake), forwarding every byte unchanged.
type wireRecorder struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  [][]sentCmd
	wg     sync.WaitGroup
}

func newWireRecorder(t *testing.T, target string) *wireRecorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &wireRecorder{ln: ln, target: target}
	r.wg.Add(1)
	go r.accept()
	t.Cleanup(func() { ln.Close(); r.wg.Wait() })
	return r
}

func (r *wireRecorder) addr() string { return r.ln.Addr().String() }

func (r *wireRecorder) accept() {
	defer r.wg.Done()
	for {
		client, err := r.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", r.target)
		if err != nil {
			client.Close()
			continue
		}
		r.mu.Lock()
		i := len(r.conns)
		r.conns = append(r.conns, nil)
		r.mu.Unlock()
		r.wg.Add(2)
		go func() {
			defer r.wg.Done()
			_, _ = io.Copy(client, server)
			client.Close()
		}()
		go func() {
			defer r.wg.Done()
			r.forward(i, client, server)
			server.Close()
		}()
	}
}

// forward copies client's messages to server, recording each command.
func (r *wireRecorder) forward(i int, client, server net.Conn) {
	var hdr [16]byte
	for {
		if _, err := io.ReadFull(client, hdr[:]); err != nil {
			return
		}
		n := int(binary.LittleEndian.Uint32(hdr[:4]))
		if n < 16 || n > 48<<20 {
			return
		}
		msg := make([]byte, n)
		copy(msg, hdr[:])
		if _, err := io.ReadFull(client, msg[16:]); err != nil {
			return
		}
		if doc := commandDoc(msg); doc != nil {
			cmd := sentCmd{}
			if els, err := doc.Elements(); err == nil && len(els) > 0 {
				cmd.name = els[0].Key()
				if cmd.name == "$query" {
					if q, ok := els[0].Value().DocumentOK(); ok {
						doc = q
						if qe, err := q.IndexErr(0); err == nil {
							cmd.name = qe.Key()
						}
					}
				}
			}
			_, err := doc.LookupErr("speculativeAuthenticate")
			cmd.speculative = err == nil
			r.mu.Lock()
			r.conns[i] = append(r.conns[i], cmd)
			r.mu.Unlock()
		}
		if _, err := server.Write(msg); err != nil {
			return
		}
	}
}

// commandDoc is the command document of an OP_MSG (its body section) or
// OP_QUERY message; nil for others.
func commandDoc(msg []byte) bson.Raw {
	b := msg[16:]
	switch binary.LittleEndian.Uint32(msg[12:16]) {
	case 2013: // OP_MSG: flagBits, then sections
		b = b[4:]
		for len(b) > 5 {
			kind := b[0]
			size := int(binary.LittleEndian.Uint32(b[1:5]))
			if size > len(b)-1 {
				return nil
			}
			if kind == 0 {
				return bson.Raw(b[1 : 1+size])
			}
			b = b[1+size:]
		}
	case 2004: // OP_QUERY: flags, collection name, skip, limit, query
		b = b[4:]
		end := strings.IndexByte(string(b), 0)
		if end < 0 || len(b) < end+9+4 {
			return nil
		}
		b = b[end+9:]
		size := int(binary.LittleEndian.Uint32(b[:4]))
		if size <= len(b) {
			return bson.Raw(b[:size])
		}
	}
	return nil
}

// sent returns a copy of the recorded commands, per connection.
func (r *wireRecorder) sent() [][]sentCmd {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([][]sentCmd, len(r.conns))
	for i, c := range r.conns {
		out[i] = append([]sentCmd(nil), c...)
	}
	return out
}

// checkSpeculative: every connection that authenticated did it in its
// handshake: a hello carrying speculativeAuthenticate (SCRAM's first
// step), then exactly one saslContinue (the second, proving the password
// and answered done), and never a saslStart; at least one did.
func checkSpeculative(t *testing.T, who string, conns [][]sentCmd) {
	t.Helper()
	authed := 0
	for i, cmds := range conns {
		sasl := 0
		for _, c := range cmds {
			switch c.name {
			case "saslStart":
				t.Errorf("%s: connection %d sent saslStart: %v", who, i, cmds)
			case "saslContinue":
				sasl++
			}
		}
		if len(cmds) == 0 || !cmds[0].speculative {
			if sasl > 0 {
				t.Errorf("%s: connection %d authenticated without speculativeAuthenticate: %v", who, i, cmds)
			}
			continue
		}
		authed++
		if name := strings.ToLower(cmds[0].name); name != "hello" && name != "ismaster" {
			t.Errorf("%s: connection %d: speculativeAuthenticate on %s", who, i, cmds[0].name)
		}
		if len(cmds) < 2 || cmds[1].name != "saslContinue" || sasl != 1 {
			t.Errorf("%s: connection %d: want hello+speculativeAuthenticate then one saslContinue, got %v", who, i, cmds)
		}
	}
	if authed == 0 {
		t.Errorf("%s: no connection authenticated speculatively: %v", who, conns)
	}
	t.Logf("%s: %v", who, conns)
}

// TestSpeculativeAuthentication: the Go driver, mongosh and pymongo
// authenticate a new connection in its handshake (MongoDB 4.4+'s
// speculative authentication): hello carries the SCRAM client-first
// message and answers with the server's, so the only other round trip
// is one saslContinue, and no saslStart is sent. A proxy between client
// and server records what each connection sends.
func TestSpeculativeAuthentication(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--auth")
	setupUsersGo(t, s)
	uri := func(r *wireRecorder, mech string) string {
		q := url.Values{"directConnection": {"true"}, "authSource": {"appdb"}, "maxPoolSize": {"1"}}
		if mech != "" {
			q.Set("authMechanism", mech)
		}
		return "mongodb://ro:" + roPwd + "@" + r.addr() + "/appdb?" + q.Encode()
	}
	for _, mech := range []string{"", "SCRAM-SHA-256", "SCRAM-SHA-1"} {
		t.Run("go/"+mech, func(t *testing.T) {
			r := newWireRecorder(t, s.addr)
			c := goClient(t, uri(r, mech))
			n, err := c.Database("appdb").Collection("items").CountDocuments(context.Background(), bson.D{})
			if err != nil || n != 2 {
				t.Fatalf("count: %d %v", n, err)
			}
			_ = c.Disconnect(context.Background())
			checkSpeculative(t, fmt.Sprintf("Go driver (%q)", mech), r.sent())
		})
	}
	t.Run("mongosh", func(t *testing.T) {
		requireTool(t, "mongosh")
		r := newWireRecorder(t, s.addr)
		mustMongosh(t, "n=2", uri(r, ""), "--eval", `print("n=" + db.items.countDocuments({}))`)
		checkSpeculative(t, "mongosh", r.sent())
	})
	t.Run("pymongo", func(t *testing.T) {
		r := newWireRecorder(t, s.addr)
		mustPython(t, "n=2", "-c", `import sys, pymongo
c = pymongo.MongoClient(sys.argv[1], serverSelectionTimeoutMS=5000)
print("n=%d" % c.appdb.items.count_documents({}))
c.close()`, uri(r, ""))
		checkSpeculative(t, "pymongo", r.sent())
	})
}
