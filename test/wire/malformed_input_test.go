package wire_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
	"github.com/lodedb/lode/test/testenv"
)

func TestMalformedInputKeepsServing(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)

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

	// A bad opcode: mongod 7.0 logs an unknown opcode and sends no reply;
	// the connection keeps working. The ping's reply answers the ping, so
	// nothing was sent for the unknown opcode.
	r = dialRaw(t, db.URI())
	var bad bytes.Buffer
	binary.Write(&bad, binary.LittleEndian, []int32{16 + 8, 7, 0, 9999})
	bad.Write([]byte{0, 0, 0, 0, 1, 2, 3, 4})
	r.send(bad.Bytes())
	r.id = 100
	if rep := r.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("ping after bad opcode: %v", rep)
	}

	// An oversized document in an insert: MongoDB 7.0 reports BadValue as a
	// write error (fixDocumentForInsert), and the connection stays usable.
	big := bsoncore.NewDocumentBuilder().AppendString("_id", "big").
		AppendString("pad", strings.Repeat("x", wire.MaxBSONObjectSize)).Build()
	ins := bsoncore.NewDocumentBuilder().AppendString("insert", "c").AppendString("$db", "test").Build()
	rep := r.command(ins, wire.Sequence{Identifier: "documents", Documents: []bsoncore.Document{big}})
	if rep.Lookup("ok").AsFloat64() != 1 || rep.Lookup("n").Int32() != 0 {
		t.Fatalf("oversized insert: want ok:1 n:0, got %v", rep)
	}
	we := rep.Lookup("writeErrors", "0").Document()
	wantMsg := fmt.Sprintf("object to insert too large. size in bytes: %d, max size: 16777216", len(big))
	if we.Lookup("code").Int32() != 2 || we.Lookup("index").Int32() != 0 || we.Lookup("errmsg").StringValue() != wantMsg {
		t.Fatalf("oversized insert write error: %v", we)
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

// TestLegacyOpcodes checks mongod 7.0's answers to the removed legacy
// opcodes (service_entry_point_common.cpp): OP_QUERY outside "$cmd" and
// OP_GET_MORE get an OP_REPLY {$err, code: 5739101, ok: 0} with the
// QueryFailure flag and the connection goes on; OP_INSERT, OP_UPDATE,
// OP_DELETE and OP_KILL_CURSORS fail their request, which ends the
// session; other connections keep serving.
func TestLegacyOpcodes(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	doc := bsoncore.NewDocumentBuilder().AppendInt32("a", 1).Build()
	nsBody := func(prefix []byte, ns string, rest ...[]byte) []byte {
		b := append(append(append([]byte(nil), prefix...), ns...), 0)
		for _, r := range rest {
			b = append(b, r...)
		}
		return b
	}
	zero4 := []byte{0, 0, 0, 0}

	r := dialRaw(t, db.URI())
	r.send(wire.AppendQuery(nil, 11, 0, "test.c", 0, 1, doc, nil))
	rep := r.readReply(11)
	want := "OP_QUERY is no longer supported. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal"
	d := rep.Documents[0]
	if rep.ResponseFlags != wire.ReplyQueryFailure || rep.CursorID != 0 ||
		d.Lookup("$err").StringValue() != want || d.Lookup("code").Int32() != 5739101 || d.Lookup("ok").AsFloat64() != 0 {
		t.Fatalf("OP_QUERY on a collection: flags %d cursor %d %v", rep.ResponseFlags, rep.CursorID, d)
	}
	// OP_GET_MORE: zero, ns, numberToReturn, cursorID.
	r.send(legacyMsg(12, wire.OpGetMore, nsBody(zero4, "test.c", zero4, make([]byte, 8))))
	rep = r.readReply(12)
	d = rep.Documents[0]
	if rep.ResponseFlags != wire.ReplyQueryFailure || d.Lookup("code").Int32() != 5739101 ||
		!strings.HasPrefix(d.Lookup("$err").StringValue(), "OP_GET_MORE is no longer supported. ") {
		t.Fatalf("OP_GET_MORE: %v", d)
	}
	r.id = 20
	if rep := r.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("ping after OP_QUERY and OP_GET_MORE: %v", rep)
	}

	// The fire-and-forget writes end the session: no reply, then EOF.
	for _, tc := range []struct {
		op   wire.OpCode
		body []byte
	}{
		{wire.OpInsert, nsBody(zero4, "test.c", doc)},
		{wire.OpUpdate, nsBody(zero4, "test.c", zero4, doc, doc)},
		{wire.OpDelete, nsBody(zero4, "test.c", zero4, doc)},
		{wire.OpKillCursors, append(append([]byte(nil), zero4...), 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0)},
	} {
		r := dialRaw(t, db.URI())
		r.send(legacyMsg(30, tc.op, tc.body))
		got, err := io.ReadAll(r.nc)
		if err != nil || len(got) != 0 {
			t.Fatalf("%v: want the connection closed without a reply, got %d bytes, err %v", tc.op, len(got), err)
		}
	}
	// Nothing was inserted, and other connections keep serving.
	if rep := r.command(ping()); rep.Lookup("ok").AsFloat64() != 1 {
		t.Fatalf("ping on another connection: %v", rep)
	}
	n, err := db.Client().Database("test").Collection("c").CountDocuments(context.Background(), bsoncore.NewDocumentBuilder().Build())
	if err != nil || n != 0 {
		t.Fatalf("legacy writes must not write: n=%d err=%v", n, err)
	}
}
