package wire_test

import (
	"bytes"
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

// rawConn is a bare TCP connection to the server for sending malformed
// messages the drivers never send.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	id int32
}

func dialRaw(t *testing.T, uri string) *rawConn {
	t.Helper()
	host := strings.TrimPrefix(uri, "mongodb://")
	host = host[:strings.IndexByte(host, '/')]
	nc, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	return &rawConn{t: t, nc: nc}
}

func (r *rawConn) send(b []byte) {
	r.t.Helper()
	if _, err := r.nc.Write(b); err != nil {
		r.t.Fatal(err)
	}
}

// command sends an OP_MSG and returns the reply body.
func (r *rawConn) command(body bsoncore.Document, seqs ...wire.Sequence) bsoncore.Document {
	r.t.Helper()
	r.id++
	r.send(wire.AppendMsgSequences(nil, r.id, 0, 0, body, seqs...))
	return r.readMsg()
}

func (r *rawConn) readMsg() bsoncore.Document {
	r.t.Helper()
	m, err := wire.ReadMessage(r.nc)
	if err != nil {
		r.t.Fatalf("reading reply: %v", err)
	}
	msg, ok := m.(*wire.Msg)
	if !ok {
		r.t.Fatalf("reply is %T, want OP_MSG", m)
	}
	return msg.Body
}

func ping() bsoncore.Document {
	return bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()
}

func wantError(t *testing.T, reply bsoncore.Document, code int32) {
	t.Helper()
	if reply.Lookup("ok").AsFloat64() != 0 {
		t.Fatalf("want ok:0, got %v", reply)
	}
	if got := reply.Lookup("code").Int32(); got != code {
		t.Fatalf("want code %d, got %v", code, reply)
	}
	if reply.Lookup("codeName").StringValue() == "" || reply.Lookup("errmsg").StringValue() == "" {
		t.Fatalf("error reply lacks codeName/errmsg: %v", reply)
	}
}

// readAny reads one message of any opcode.
func (r *rawConn) readAny() wire.Message {
	r.t.Helper()
	m, err := wire.ReadMessage(r.nc)
	if err != nil {
		r.t.Fatalf("reading reply: %v", err)
	}
	return m
}

// readReply reads one OP_REPLY answering request id.
func (r *rawConn) readReply(id int32) *wire.Reply {
	r.t.Helper()
	m := r.readAny()
	u, ok := m.(*wire.Unknown)
	if !ok {
		r.t.Fatalf("reply is %T, want OP_REPLY", m)
	}
	rep, err := wire.ParseReply(u)
	if err != nil {
		r.t.Fatal(err)
	}
	if rep.ResponseTo != id {
		r.t.Fatalf("OP_REPLY responseTo %d, want %d", rep.ResponseTo, id)
	}
	if len(rep.Documents) != 1 {
		r.t.Fatalf("OP_REPLY holds %d documents, want 1", len(rep.Documents))
	}
	return rep
}

// legacyMsg builds a message of the given legacy opcode with a plausible
// body: flags/zero, a namespace, and one document.
func legacyMsg(id int32, op wire.OpCode, body []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, []int32{int32(16 + len(body)), id, 0, int32(op)})
	b.Write(body)
	return b.Bytes()
}
