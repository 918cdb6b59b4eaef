package wire

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestQueryRoundTrip(t *testing.T) {
	hello := doc("isMaster", 1, "helloOk", true, "client", doc("driver", doc("name", "x")))
	fields := doc("a", 1)
	tests := []struct {
		name   string
		fields bsoncore.Document
	}{
		{"no selector", nil},
		{"with selector", fields},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := AppendQuery(nil, 42, QuerySecondaryOk, "admin.$cmd", 0, -1, hello, tc.fields)
			m, err := read(b)
			if err != nil {
				t.Fatal(err)
			}
			q, ok := m.(*Query)
			if !ok {
				t.Fatalf("got %T", m)
			}
			want := Header{MessageLength: int32(len(b)), RequestID: 42, OpCode: OP_QUERY}
			if q.Header != want || q.Flags != QuerySecondaryOk || q.FullCollectionName != "admin.$cmd" ||
				q.NumberToSkip != 0 || q.NumberToReturn != -1 || !bytes.Equal(q.Query, hello) ||
				!bytes.Equal(q.ReturnFieldsSelector, tc.fields) {
				t.Fatalf("bad query %+v", q)
			}
			if q.Database() != "admin" || q.Collection() != "$cmd" {
				t.Fatalf("Database/Collection = %q %q", q.Database(), q.Collection())
			}
		})
	}
	if q := (&Query{FullCollectionName: "nodot"}); q.Database() != "nodot" || q.Collection() != "" {
		t.Fatal("namespace without a dot")
	}
}

func TestQueryMalformed(t *testing.T) {
	q := doc("hello", 1)
	good := AppendQuery(nil, 1, 0, "admin.$cmd", 0, -1, q, nil)
	build := func(body []byte) []byte {
		return finishMessage(append(appendHeader(nil, 1, 0, OP_QUERY), body...), 0)
	}
	bad := bytes.Clone(q)
	bad[len(bad)-1] = 1
	tests := []struct {
		name string
		raw  []byte
		code errs.Code
	}{
		{"no flags", build([]byte{0, 0}), errs.ProtocolError},
		{"unterminated namespace", build([]byte{0, 0, 0, 0, 'a', 'b'}), errs.ProtocolError},
		{"no numbers", build([]byte{0, 0, 0, 0, 'a', 0, 1, 2, 3}), errs.ProtocolError},
		{"no query", build([]byte{0, 0, 0, 0, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0}), errs.InvalidBSON},
		{"bad query", AppendQuery(nil, 1, 0, "a.b", 0, 0, bad, nil), errs.InvalidBSON},
		{"bad selector", AppendQuery(nil, 1, 0, "a.b", 0, 0, q, bad), errs.InvalidBSON},
		{"trailing garbage", append(bytes.Clone(AppendQuery(nil, 1, 0, "a.b", 0, 0, q, q)), 0), errs.ProtocolError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.raw
			binary.LittleEndian.PutUint32(raw, uint32(len(raw)))
			stream := append(bytes.Clone(raw), good...)
			r := bytes.NewReader(stream)
			_, err := ReadMessage(r)
			pe := protoErr(t, err, false, tc.code)
			if pe.Header.OpCode != OP_QUERY || pe.MoreToCome {
				t.Errorf("bad header in error: %+v", pe)
			}
			if _, err := ReadMessage(r); err != nil {
				t.Fatalf("next message: %v", err)
			}
		})
	}
}

func TestReplyRoundTrip(t *testing.T) {
	d1, d2 := doc("ok", 1, "ismaster", true), doc("x", "y")
	b := AppendReply(nil, 100, 42, ReplyAwaitCapable, 1234567890123, 3, d1, d2)
	var w bytes.Buffer
	if err := WriteReply(&w, 100, 42, ReplyAwaitCapable, 1234567890123, 3, d1, d2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), b) {
		t.Fatal("WriteReply and AppendReply differ")
	}
	m, err := read(b)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := m.(*Unknown)
	if !ok {
		t.Fatalf("OP_REPLY read as %T, want *Unknown", m)
	}
	r, err := ParseReply(u)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{MessageLength: int32(len(b)), RequestID: 100, ResponseTo: 42, OpCode: OP_REPLY}
	if r.Header != want || r.ResponseFlags != ReplyAwaitCapable || r.CursorID != 1234567890123 ||
		r.StartingFrom != 3 || len(r.Documents) != 2 || !bytes.Equal(r.Documents[0], d1) ||
		!bytes.Equal(r.Documents[1], d2) {
		t.Fatalf("bad reply %+v", r)
	}
	// Byte layout: header, flags, cursor id, startingFrom, numberReturned.
	if got := binary.LittleEndian.Uint32(b[32:]); got != 2 {
		t.Fatalf("numberReturned %d", got)
	}
	if _, err := ParseReply(&Unknown{Header: Header{OpCode: OP_MSG}}); err == nil {
		t.Fatal("ParseReply accepted OP_MSG")
	}
	bad := bytes.Clone(u.Body)
	binary.LittleEndian.PutUint32(bad[16:], 3)
	if _, err := ParseReply(&Unknown{Header: u.Header, Body: bad}); err == nil {
		t.Fatal("ParseReply accepted a wrong numberReturned")
	}
}

func TestWriteMsg(t *testing.T) {
	var w bytes.Buffer
	body := doc("ok", 1)
	if err := WriteMsg(&w, 3, 2, MoreToCome, body); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), AppendMsg(nil, 3, 2, MoreToCome, body)) {
		t.Fatal("WriteMsg and AppendMsg differ")
	}
	if err := WriteMsg(errWriter{}, 3, 2, 0, body); err == nil {
		t.Fatal("write error swallowed")
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, bytes.ErrTooLarge }
