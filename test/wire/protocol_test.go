package wire_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
	"github.com/lodedb/lode/test/testenv"
)

// TestOpQueryHandshake sends the legacy OP_QUERY handshake drivers open
// with (hello and isMaster on admin.$cmd) over a raw socket: the answer is
// an OP_REPLY with one document and only the AwaitCapable flag. Another command through
// OP_QUERY is refused with 352 UnsupportedOpQueryCommand, inside an
// OP_REPLY, and the connection keeps serving OP_MSG.
func TestOpQueryHandshake(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	r := dialRaw(t, db.URI())
	for i, name := range []string{"isMaster", "hello", "ismaster"} {
		id := int32(10 + i)
		q := bsoncore.NewDocumentBuilder().AppendInt32(name, 1).AppendBoolean("helloOk", true).Build()
		r.send(wire.AppendQuery(nil, id, 0, "admin.$cmd", 0, -1, q, nil))
		rep := r.readReply(id)
		d := rep.Documents[0]
		// mongod's LegacyReplyBuilder sets AwaitCapable (8) and nothing else.
		if rep.ResponseFlags != wire.ReplyAwaitCapable || rep.CursorID != 0 || rep.StartingFrom != 0 {
			t.Fatalf("%s: OP_REPLY flags %d cursor %d from %d", name, rep.ResponseFlags, rep.CursorID, rep.StartingFrom)
		}
		if d.Lookup("ok").AsFloat64() != 1 || d.Lookup("maxWireVersion").Int32() != 21 ||
			d.Lookup("maxBsonObjectSize").Int32() != 16777216 || !d.Lookup("helloOk").Boolean() {
			t.Fatalf("%s: %v", name, d)
		}
		primary := "ismaster"
		if name == "hello" {
			primary = "isWritablePrimary"
		}
		if !d.Lookup(primary).Boolean() {
			t.Fatalf("%s: want %s true: %v", name, primary, d)
		}
		if _, err := d.LookupErr("topologyVersion"); err == nil {
			t.Fatalf("%s: no topologyVersion: %v", name, d)
		}
	}
	// Drivers may wrap the command as {$query: ..., $readPreference: ...}.
	wrapped := bsoncore.NewDocumentBuilder().
		AppendDocument("$query", bsoncore.NewDocumentBuilder().AppendInt32("isMaster", 1).Build()).
		AppendDocument("$readPreference", bsoncore.NewDocumentBuilder().AppendString("mode", "primaryPreferred").Build()).
		Build()
	r.send(wire.AppendQuery(nil, 20, 0, "admin.$cmd", 0, -1, wrapped, nil))
	if d := r.readReply(20).Documents[0]; d.Lookup("ok").AsFloat64() != 1 || !d.Lookup("ismaster").Boolean() {
		t.Fatalf("$query-wrapped isMaster: %v", d)
	}
	for i, cmd := range []string{"ping", "find", "Hello"} {
		id := int32(30 + i)
		q := bsoncore.NewDocumentBuilder().AppendInt32(cmd, 1).Build()
		r.send(wire.AppendQuery(nil, id, 0, "test.$cmd", 0, -1, q, nil))
		rep := r.readReply(id)
		d := rep.Documents[0]
		if rep.ResponseFlags != wire.ReplyAwaitCapable {
			t.Fatalf("OP_QUERY %s: flags %d", cmd, rep.ResponseFlags)
		}
		want := "Unsupported OP_QUERY command: " + cmd + ". The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal"
		if d.Lookup("ok").AsFloat64() != 0 || d.Lookup("code").Int32() != 352 ||
			d.Lookup("codeName").StringValue() != "UnsupportedOpQueryCommand" || d.Lookup("errmsg").StringValue() != want {
			t.Fatalf("OP_QUERY %s: %v", cmd, d)
		}
	}
	// A command through OP_QUERY must ask for exactly one document.
	q := bsoncore.NewDocumentBuilder().AppendInt32("isMaster", 1).Build()
	r.send(wire.AppendQuery(nil, 35, 0, "admin.$cmd", 0, 0, q, nil))
	if d := r.readReply(35).Documents[0]; d.Lookup("code").Int32() != 16979 || d.Lookup("codeName").StringValue() != "Location16979" ||
		d.Lookup("errmsg").StringValue() != "Bad numberToReturn (0) for $cmd type ns - can only be 1 or -1" {
		t.Fatalf("numberToReturn 0: %v", d)
	}
	r.id = 40
	if rep := r.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("OP_MSG after the handshake: %v", rep)
	}
}

// TestOpMsgMoreToCome sends an unacknowledged insert (moreToCome set, as
// for w:0): the server sends nothing back, and the next command on the
// same connection is answered (its reply answers its own request id) and
// sees the write.
func TestOpMsgMoreToCome(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	r := dialRaw(t, db.URI())
	ins := bsoncore.NewDocumentBuilder().AppendString("insert", "w0").
		AppendDocument("writeConcern", bsoncore.NewDocumentBuilder().AppendInt32("w", 0).Build()).
		AppendString("$db", "test").Build()
	docs := []bsoncore.Document{
		bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build(),
		bsoncore.NewDocumentBuilder().AppendInt32("_id", 2).Build(),
	}
	r.send(wire.AppendMsgSequences(nil, 1, 0, wire.MoreToCome, ins, wire.Sequence{Identifier: "documents", Documents: docs}))
	// A failing fire-and-forget command (duplicate key) is not answered
	// either.
	r.send(wire.AppendMsgSequences(nil, 2, 0, wire.MoreToCome, ins, wire.Sequence{Identifier: "documents", Documents: docs[:1]}))
	// Nothing arrives for the fire-and-forget messages.
	_ = r.nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var one [1]byte
	if n, err := r.nc.Read(one[:]); n != 0 || err == nil {
		t.Fatalf("moreToCome must get no reply: read %d bytes, err %v", n, err)
	}
	_ = r.nc.SetDeadline(time.Now().Add(30 * time.Second))
	count := bsoncore.NewDocumentBuilder().AppendString("count", "w0").AppendString("$db", "test").Build()
	r.send(wire.AppendMsg(nil, 3, 0, 0, count))
	m := r.readAny().(*wire.Msg)
	if m.ResponseTo != 3 || m.Body.Lookup("ok").AsFloat64() != 1 || m.Body.Lookup("n").Int32() != 2 {
		t.Fatalf("count after w:0 insert: responseTo %d %v", m.ResponseTo, m.Body)
	}
}

// TestOpMsgChecksum sends OP_MSGs with the checksumPresent flag: a valid
// CRC-32C is accepted and, as mongod does over plain TCP, the reply carries
// its own checksum; a wrong checksum closes the connection.
func TestOpMsgChecksum(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	r := dialRaw(t, db.URI())
	msg := wire.AppendMsg(nil, 7, 0, wire.ChecksumPresent, ping())
	// The trailer is CRC-32C (Castagnoli) over everything before it.
	if got := binary.LittleEndian.Uint32(msg[len(msg)-4:]); got != crc32.Checksum(msg[:len(msg)-4], crc32.MakeTable(crc32.Castagnoli)) {
		t.Fatal("test encoder wrote a bad checksum")
	}
	r.send(msg)
	m, ok := r.readAny().(*wire.Msg)
	if !ok || m.ResponseTo != 7 || m.Body.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("checksummed ping: %#v", m)
	}
	if !m.HasChecksum || m.FlagBits&wire.ChecksumPresent == 0 {
		t.Fatal("reply to a checksummed request must carry a checksum")
	}
	// Without the flag the reply has none.
	r.id = 8
	r.send(wire.AppendMsg(nil, 8, 0, 0, ping()))
	if m := r.readAny().(*wire.Msg); m.HasChecksum {
		t.Fatal("reply to an unchecksummed request must not carry a checksum")
	}

	bad := wire.AppendMsg(nil, 9, 0, wire.ChecksumPresent, ping())
	bad[len(bad)-1] ^= 0xff
	r.send(bad)
	if _, err := wire.ReadMessage(r.nc); !errors.Is(err, io.EOF) {
		t.Fatalf("a checksum mismatch must close the connection without a reply, got %v", err)
	}
	// The server keeps serving other connections.
	r2 := dialRaw(t, db.URI())
	if rep := r2.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("ping on a new connection: %v", rep)
	}
}
