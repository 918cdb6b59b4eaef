package lode_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/wire"
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

func TestMalformedInputKeepsServing(t *testing.T) {
	db, _ := open(t)

	// A truncated message: the header promises more than arrives before the
	// client hangs up. The server drops that connection only.
	r := dialRaw(t, db.URI())
	var hdr [16]byte
	binary.LittleEndian.PutUint32(hdr[0:], 200)
	binary.LittleEndian.PutUint32(hdr[12:], 2013)
	r.send(append(hdr[:], 0, 0, 0, 0, 1, 2, 3))
	r.nc.(*net.TCPConn).CloseWrite()
	if _, err := io.ReadAll(r.nc); err != nil {
		t.Fatalf("server must close the truncated connection cleanly: %v", err)
	}

	// A bad opcode: an error reply, and the connection keeps working.
	r = dialRaw(t, db.URI())
	var bad bytes.Buffer
	binary.Write(&bad, binary.LittleEndian, []int32{16 + 8, 7, 0, 2002})
	bad.Write([]byte{0, 0, 0, 0, 1, 2, 3, 4})
	r.send(bad.Bytes())
	wantError(t, r.readMsg(), 17)
	if rep := r.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("ping after bad opcode: %v", rep)
	}

	// An oversized document in an insert: BSONObjectTooLarge, connection
	// still usable.
	big := bsoncore.NewDocumentBuilder().AppendString("_id", "big").
		AppendString("pad", strings.Repeat("x", wire.MaxBSONObjectSize)).Build()
	ins := bsoncore.NewDocumentBuilder().AppendString("insert", "c").AppendString("$db", "test").Build()
	rep := r.command(ins, wire.Sequence{Identifier: "documents", Documents: []bsoncore.Document{big}})
	if rep.Lookup("ok").AsFloat64() == 0 {
		wantError(t, rep, 10334)
	} else {
		we, err := rep.LookupErr("writeErrors", "0", "code")
		if err != nil || we.Int32() != 10334 {
			t.Fatalf("oversized insert: %v", rep)
		}
	}
	if rep := r.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("ping after oversized document: %v", rep)
	}

	// An unknown query operator and a wrong-typed $inc.
	find := bsoncore.NewDocumentBuilder().AppendString("find", "c").
		AppendDocument("filter", bsoncore.NewDocumentBuilder().AppendInt32("$foo", 1).Build()).
		AppendString("$db", "test").Build()
	wantError(t, r.command(find), 2)
	upd := bsoncore.NewDocumentBuilder().AppendString("update", "c").
		AppendArray("updates", bsoncore.NewArrayBuilder().AppendDocument(bsoncore.NewDocumentBuilder().
			AppendDocument("q", bsoncore.NewDocumentBuilder().Build()).
			AppendDocument("u", bsoncore.NewDocumentBuilder().AppendDocument("$inc",
				bsoncore.NewDocumentBuilder().AppendString("a", "x").Build()).Build()).
			AppendBoolean("upsert", true).Build()).Build()).
		AppendString("$db", "test").Build()
	rep = r.command(upd)
	if we, err := rep.LookupErr("writeErrors", "0", "code"); err != nil || we.Int32() != 14 {
		t.Fatalf("$inc with a string: %v", rep)
	}

	// A body that is not valid BSON: error reply, connection intact.
	var badBody bytes.Buffer
	binary.Write(&badBody, binary.LittleEndian, []int32{16 + 4 + 1 + 8, 9, 0, 2013, 0})
	badBody.WriteByte(0)
	binary.Write(&badBody, binary.LittleEndian, []int32{8})
	badBody.Write([]byte{0x10, 0, 0, 0})
	r.send(badBody.Bytes())
	if rep := r.readMsg(); rep.Lookup("ok").AsFloat64() != 0 {
		t.Fatalf("invalid BSON must fail: %v", rep)
	}
	if rep := r.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("ping after invalid BSON: %v", rep)
	}
}
