package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/wire"
)

// txnConn serves one retryable insert over and over, each time with the
// next txnNumber and a new _id, as a driver's single inserts come.
type txnConn struct {
	memConn
	txnAt, idAt int // offsets of the txnNumber's and the _id's values in msg
	txn         int64
	id          uint64
	last        []byte // the last reply
}

func (t *txnConn) Read(p []byte) (int, error) {
	if t.off == 0 {
		t.txn++
		t.id++
		binary.LittleEndian.PutUint64(t.msg[t.txnAt:], uint64(t.txn))
		binary.BigEndian.PutUint64(t.msg[t.idAt+4:], t.id)
	}
	// One message at most per read: the next one must carry the next
	// number.
	n := copy(p, t.msg[t.off:])
	t.off = (t.off + n) % len(t.msg)
	return n, nil
}

func (t *txnConn) Write(p []byte) (int, error) {
	t.last = append(t.last[:0], p...)
	return t.memConn.Write(p)
}

// BenchmarkServeInsert is the server's user-space cost of one retryable
// single-document insert, from the read buffer to the reply's bytes: the
// command path, the engine's insert (record, _id entry, oplog entry) and
// the session's retryable-write record, committed without waiting for
// the log (w:1). Its allocations are the single insert's; one j:true
// client pays them once per round trip.
func BenchmarkServeInsert(b *testing.B) {
	s, eng := newBenchServer(b)
	tc := newInsertConn(b)
	benchServeOne(b, s, tc, func() bool { return tc.written > 0 })
	b.StopTimer()
	checkInserts(b, eng, tc)
}

// newInsertConn is a txnConn serving a driver's retryable insert of one
// small event document into bench.events.
func newInsertConn(b *testing.B) *txnConn { return newEventInsertConn(b, true) }

// newEventInsertConn is newInsertConn's insert, retryable (into
// bench.events, its txnNumber changed) or plain (into bench.plain,
// without a session: its comment carries the changing number).
func newEventInsertConn(b *testing.B, retryable bool) *txnConn {
	var oid bson.ObjectID
	doc := bsoncore.NewDocumentBuilder().
		AppendObjectID("_id", oid).
		AppendString("path", "/a/b/c").
		AppendString("host", "web-17").
		AppendInt64("bytes", 5120).
		Build()
	cmd := bsoncore.NewDocumentBuilder()
	counter := "comment"
	if retryable {
		uuid := bytes.Repeat([]byte{7}, 16)
		counter = "txnNumber"
		cmd.AppendString("insert", "events").
			AppendBoolean("ordered", true).
			AppendDocument("lsid", bsoncore.NewDocumentBuilder().AppendBinary("id", 4, uuid).Build())
	} else {
		cmd.AppendString("insert", "plain").AppendBoolean("ordered", true)
	}
	cmd.AppendInt64(counter, 1).AppendString("$db", "bench")
	msg := wire.AppendMsgSequences(nil, 1, 0, 0, cmd.Build(), wire.Sequence{Identifier: "documents", Documents: []bsoncore.Document{doc}})
	name := counter + "\x00"
	txnAt := bytes.Index(msg, []byte(name)) + len(name)
	idAt := bytes.Index(msg, []byte("\x07_id\x00")) + len("\x07_id\x00")
	if txnAt < len(name) || idAt < len("\x07_id\x00") {
		b.Fatalf("%s or _id not found in the message", counter)
	}
	return &txnConn{memConn: memConn{msg: msg}, txnAt: txnAt, idAt: idAt}
}

// checkInserts fails b unless every insert tc served landed.
func checkInserts(b *testing.B, eng *engine.Engine, tc *txnConn) {
	n, err := eng.Count(context.Background(), "bench", "events", nil, 0, 0, bsoncore.Value{})
	if err != nil || n != int64(tc.txn) {
		b.Fatalf("%d documents (%v): the inserts did not all land; last reply %q", n, err, tc.last)
	}
}
