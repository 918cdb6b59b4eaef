package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func TestMsgRoundTrip(t *testing.T) {
	body := doc("ping", 1, "$db", "admin")
	for _, flags := range []uint32{0, MoreToCome, ExhaustAllowed, ChecksumPresent, ChecksumPresent | MoreToCome, 1 << 31} {
		b := AppendMsg([]byte("prefix"), 7, 3, flags, body)
		b = b[len("prefix"):]
		if got := int(binary.LittleEndian.Uint32(b)); got != len(b) {
			t.Fatalf("flags %#x: header length %d, message %d bytes", flags, got, len(b))
		}
		m, err := read(b)
		if err != nil {
			t.Fatalf("flags %#x: %v", flags, err)
		}
		msg, ok := m.(*Msg)
		if !ok {
			t.Fatalf("got %T, want *Msg", m)
		}
		want := Header{MessageLength: int32(len(b)), RequestID: 7, ResponseTo: 3, OpCode: OP_MSG}
		if msg.MessageHeader() != want {
			t.Errorf("header %+v, want %+v", msg.Header, want)
		}
		if msg.FlagBits != flags {
			t.Errorf("flags %#x, want %#x", msg.FlagBits, flags)
		}
		if !bytes.Equal(msg.Body, body) {
			t.Errorf("body %v, want %v", msg.Body, body)
		}
		if msg.MoreToCome() != (flags&MoreToCome != 0) {
			t.Errorf("MoreToCome() = %v for flags %#x", msg.MoreToCome(), flags)
		}
		if msg.ExhaustAllowed() != (flags&ExhaustAllowed != 0) {
			t.Errorf("ExhaustAllowed() = %v for flags %#x", msg.ExhaustAllowed(), flags)
		}
		if msg.HasChecksum != (flags&ChecksumPresent != 0) {
			t.Errorf("HasChecksum = %v for flags %#x", msg.HasChecksum, flags)
		}
		if len(msg.Sequences) != 0 {
			t.Errorf("unexpected sequences %v", msg.Sequences)
		}
		// Documents are sliced from the buffer with clipped capacity.
		if cap(msg.Body) != len(msg.Body) {
			t.Errorf("body capacity %d != length %d", cap(msg.Body), len(msg.Body))
		}
	}
}

func TestMsgSequencesAndMerged(t *testing.T) {
	body := doc("insert", "c", "ordered", true, "$db", "test")
	d1, d2 := doc("_id", 1, "a", "x"), doc("_id", 2)
	b := AppendMsgSequences(nil, 1, 0, 0, body,
		Sequence{Identifier: "documents", Documents: []bsoncore.Document{d1, d2}},
		Sequence{Identifier: "empty"})
	m, err := read(b)
	if err != nil {
		t.Fatal(err)
	}
	msg := m.(*Msg)
	if len(msg.Sequences) != 2 {
		t.Fatalf("got %d sequences, want 2", len(msg.Sequences))
	}
	s := msg.Sequences[0]
	if s.Identifier != "documents" || len(s.Documents) != 2 ||
		!bytes.Equal(s.Documents[0], d1) || !bytes.Equal(s.Documents[1], d2) {
		t.Fatalf("bad sequence %+v", s)
	}
	if msg.Sequences[1].Identifier != "empty" || len(msg.Sequences[1].Documents) != 0 {
		t.Fatalf("bad empty sequence %+v", msg.Sequences[1])
	}
	merged, err := msg.Merged()
	if err != nil {
		t.Fatal(err)
	}
	want := bsoncore.NewDocumentBuilder().
		AppendString("insert", "c").AppendBoolean("ordered", true).AppendString("$db", "test").
		AppendArray("documents", bsoncore.NewArrayBuilder().AppendDocument(d1).AppendDocument(d2).Build()).
		AppendArray("empty", bsoncore.NewArrayBuilder().Build()).
		Build()
	if !bytes.Equal(merged, want) {
		t.Fatalf("merged\n got %v\nwant %v", merged, want)
	}
	if err := merged.Validate(); err != nil {
		t.Fatal(err)
	}

	// Without sequences Merged is the body itself.
	plain := &Msg{Body: body}
	if got, err := plain.Merged(); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("Merged without sequences = %v, %v", got, err)
	}
}

func TestMsgMergedManyDocuments(t *testing.T) {
	docs := make([]bsoncore.Document, 123)
	ab := bsoncore.NewArrayBuilder()
	for i := range docs {
		docs[i] = doc("i", i)
		ab.AppendDocument(docs[i])
	}
	body := doc("insert", "c")
	m := &Msg{Body: body, Sequences: []Sequence{{Identifier: "documents", Documents: docs}}}
	got, err := m.Merged()
	if err != nil {
		t.Fatal(err)
	}
	want := bsoncore.NewDocumentBuilder().AppendString("insert", "c").AppendArray("documents", ab.Build()).Build()
	if !bytes.Equal(got, want) {
		t.Fatal("merged document differs from the expected array")
	}
	if cap(got) != len(got) {
		t.Errorf("merged size precomputation off: cap %d len %d", cap(got), len(got))
	}
}

func TestMsgDuplicateIdentifiers(t *testing.T) {
	body := doc("insert", "c", "documents", "oops", "nested", doc("docs", 1))
	d := doc("a", 1)
	tests := []struct {
		name string
		raw  []byte
		code errs.Code
	}{
		{"two sequences same name", rawMsg(1, 0, seqSection("x", d), seqSection("x", d), bodySection(doc("insert", "c"))), 40431},
		{"sequence duplicates body field", rawMsg(1, 0, bodySection(body), seqSection("documents", d)), 40433},
		{"sequence duplicates dotted body path", rawMsg(1, 0, bodySection(body), seqSection("nested.docs", d)), 40433},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(tc.raw)
			protoErr(t, err, false, tc.code)
		})
	}
	m := &Msg{Body: body, Sequences: []Sequence{{Identifier: "documents", Documents: []bsoncore.Document{d}}}}
	if _, err := m.Merged(); !errs.Is(err, 40433) {
		t.Errorf("Merged with duplicate body field: %v, want code 40433", err)
	}
	m = &Msg{Body: doc("insert", "c"), Sequences: []Sequence{{Identifier: "x"}, {Identifier: "x"}}}
	if _, err := m.Merged(); !errs.Is(err, 40431) {
		t.Errorf("Merged with duplicate sequences: %v, want code 40431", err)
	}
	// A dotted identifier that does not resolve in the body is fine.
	if _, err := read(rawMsg(1, 0, bodySection(body), seqSection("nested.other", d))); err != nil {
		t.Errorf("unrelated dotted identifier rejected: %v", err)
	}
}

func TestMsgChecksum(t *testing.T) {
	body := doc("ping", 1, "$db", "admin")
	good := AppendMsg(nil, 9, 0, ChecksumPresent, body)
	// Verify the encoder's checksum independently.
	table := crc32.MakeTable(crc32.Castagnoli)
	want := crc32.Checksum(good[:len(good)-4], table)
	if got := binary.LittleEndian.Uint32(good[len(good)-4:]); got != want {
		t.Fatalf("encoded checksum %#x, want %#x", got, want)
	}
	m, err := read(good)
	if err != nil {
		t.Fatal(err)
	}
	if msg := m.(*Msg); !msg.HasChecksum || msg.Checksum != want || !bytes.Equal(msg.Body, body) {
		t.Fatalf("bad checksummed message %+v", msg)
	}

	// Hand-built message with a correct checksum over header+flags+sections.
	raw := rawMsg(10, ChecksumPresent, bodySection(body), []byte{0, 0, 0, 0})
	binary.LittleEndian.PutUint32(raw[len(raw)-4:], crc32.Checksum(raw[:len(raw)-4], table))
	if _, err := read(raw); err != nil {
		t.Fatalf("hand-built checksum rejected: %v", err)
	}

	corrupt := func(i int) []byte {
		b := bytes.Clone(good)
		b[i] ^= 0x40
		return b
	}
	for name, b := range map[string][]byte{
		"body byte":     corrupt(len(good) - 8),
		"checksum byte": corrupt(len(good) - 1),
		"request id":    corrupt(5),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := read(b)
			pe := protoErr(t, err, true, CodeChecksumMismatch)
			if !strings.Contains(pe.Err.Msg, "checksum does not match") {
				t.Errorf("message %q", pe.Err.Msg)
			}
		})
	}

	// Checksum flag but no room for it.
	short := rawMsg(1, ChecksumPresent, []byte{1, 2, 3})
	_, err = read(short)
	protoErr(t, err, false, 51251)
}

func TestMsgFlags(t *testing.T) {
	body := bodySection(doc("ping", 1))
	for bit := 2; bit < 16; bit++ {
		_, err := read(rawMsg(1, 1<<bit, body))
		pe := protoErr(t, err, true, CodeIllegalOpMsgFlag)
		if !strings.Contains(pe.Err.Msg, "illegal flags value") {
			t.Errorf("bit %d: message %q", bit, pe.Err.Msg)
		}
	}
	for bit := 16; bit < 32; bit++ {
		if _, err := read(rawMsg(1, 1<<bit, body)); err != nil {
			t.Errorf("optional bit %d rejected: %v", bit, err)
		}
	}
	// moreToCome is reported on a bad message so the server can stay silent.
	_, err := read(rawMsg(1, MoreToCome, []byte{9}))
	pe := protoErr(t, err, false, 40432)
	if !pe.MoreToCome || pe.Header.RequestID != 1 || pe.Header.OpCode != OP_MSG {
		t.Errorf("ProtocolError %+v lacks header/moreToCome", pe)
	}
	_, err = read(rawMsg(1, 0, []byte{9}))
	if pe := protoErr(t, err, false, 40432); pe.MoreToCome {
		t.Error("MoreToCome set without the flag")
	}
}

func TestMsgMalformed(t *testing.T) {
	body := doc("ping", 1)
	badBool := bytes.Clone(doc("b", true))
	badBool[len(badBool)-2] = 2
	nested := doc("a", doc("x", 1))
	badNested := bytes.Clone(nested)
	badNested[len(badNested)-2] = 7 // inner document's terminator
	badType := bytes.Clone(body)
	badType[4] = 0x42
	longer := bytes.Clone(body)
	binary.LittleEndian.PutUint32(longer, uint32(len(body)+3))
	shorter := bytes.Clone(body)
	binary.LittleEndian.PutUint32(shorter, uint32(len(body)-1))
	seqShort := seqSection("documents", body)
	binary.LittleEndian.PutUint32(seqShort[1:], uint32(len(seqShort)-3)) // cuts the document
	seqLong := seqSection("documents", body)
	binary.LittleEndian.PutUint32(seqLong[1:], uint32(len(seqLong)+10))
	noNul := []byte{1, 8, 0, 0, 0, 'a', 'b', 'c', 'd'}

	tests := []struct {
		name string
		raw  []byte
		code errs.Code
	}{
		{"no sections", rawMsg(1, 0), 40587},
		{"only a sequence", rawMsg(1, 0, seqSection("documents", body)), 40587},
		{"two bodies", rawMsg(1, 0, bodySection(body), bodySection(body)), 40430},
		{"unknown section kind", rawMsg(1, 0, bodySection(body), []byte{3}), 40432},
		{"security token", rawMsg(1, 0, bodySection(body), []byte{2, 'x', 0}), errs.Unauthorized},
		{"trailing zero byte", rawMsg(1, 0, bodySection(body), []byte{0}), 40430},
		{"trailing sequence kind", rawMsg(1, 0, bodySection(body), []byte{1}), errs.ProtocolError},
		{"truncated body", rawMsg(1, 0, []byte{0, 5, 0, 0}), errs.InvalidBSON},
		{"body length beyond message", rawMsg(1, 0, bodySection(longer)), errs.InvalidBSON},
		{"body length short", rawMsg(1, 0, bodySection(shorter)), errs.InvalidBSON},
		{"body length tiny", rawMsg(1, 0, bodySection([]byte{4, 0, 0, 0, 0})), errs.InvalidBSON},
		{"bool not 0/1", rawMsg(1, 0, bodySection(badBool)), errs.InvalidBSON},
		{"bad nested doc", rawMsg(1, 0, bodySection(badNested)), errs.InvalidBSON},
		{"unknown element type", rawMsg(1, 0, bodySection(badType)), errs.InvalidBSON},
		{"sequence cuts document", rawMsg(1, 0, bodySection(body), seqShort), errs.InvalidBSON},
		{"sequence size beyond message", rawMsg(1, 0, bodySection(body), seqLong), errs.ProtocolError},
		{"sequence size tiny", rawMsg(1, 0, bodySection(body), []byte{1, 4, 0, 0, 0}), errs.ProtocolError},
		{"sequence truncated", rawMsg(1, 0, bodySection(body), []byte{1, 4, 0}), errs.ProtocolError},
		{"sequence identifier unterminated", rawMsg(1, 0, bodySection(body), noNul), errs.ProtocolError},
		{"invalid doc in sequence", rawMsg(1, 0, bodySection(body), seqSection("documents", body, badBool)), errs.InvalidBSON},
		{"no flags", finishMessage(appendHeader(nil, 1, 0, OpMsgCode), 0), errs.ProtocolError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Each bad message is followed by a good one: framing stays intact.
			stream := append(bytes.Clone(tc.raw), AppendMsg(nil, 2, 0, 0, body)...)
			r := bytes.NewReader(stream)
			_, err := ReadMessage(r)
			pe := protoErr(t, err, false, tc.code)
			if pe.Header.RequestID != 1 {
				t.Errorf("header not recorded: %+v", pe.Header)
			}
			m, err := ReadMessage(r)
			if err != nil {
				t.Fatalf("next message after a bad one: %v", err)
			}
			if m.MessageHeader().RequestID != 2 {
				t.Fatalf("next message has request id %d", m.MessageHeader().RequestID)
			}
			if _, err := ReadMessage(r); err != io.EOF {
				t.Fatalf("at end of stream: %v, want io.EOF", err)
			}
		})
	}
}

func TestMsgTooManySequences(t *testing.T) {
	d := doc("a", 1)
	_, err := read(rawMsg(1, 0, seqSection("a", d), seqSection("b", d), seqSection("c", d), bodySection(doc("x", 1))))
	protoErr(t, err, true, CodeTooManyDocumentSequences)
}

func TestOversizedDocument(t *testing.T) {
	// A string field bringing the document just over the 16 MiB + 16 KiB limit.
	big := bsoncore.NewDocumentBuilder().AppendString("s", strings.Repeat("x", MaxInternalBSONObjectSize)).Build()
	if len(big) <= MaxInternalBSONObjectSize {
		t.Fatal("test document not large enough")
	}
	for name, raw := range map[string][]byte{
		"body":     rawMsg(1, 0, bodySection(big)),
		"sequence": rawMsg(1, 0, bodySection(doc("insert", "c")), seqSection("documents", big)),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := read(raw)
			pe := protoErr(t, err, false, errs.BSONObjectTooLarge)
			if !strings.Contains(pe.Err.Msg, "16793600") {
				t.Errorf("message %q", pe.Err.Msg)
			}
		})
	}
	// Exactly at the limit is accepted.
	ok := bsoncore.NewDocumentBuilder().AppendString("s", strings.Repeat("x", MaxInternalBSONObjectSize-13)).Build()
	if len(ok) != MaxInternalBSONObjectSize {
		t.Fatalf("limit document is %d bytes", len(ok))
	}
	if _, err := read(rawMsg(1, 0, bodySection(ok))); err != nil {
		t.Fatalf("document at the limit rejected: %v", err)
	}
}

func TestDeepNesting(t *testing.T) {
	nest := func(depth int) bsoncore.Document {
		d := doc("x", 1)
		for i := 0; i < depth; i++ {
			d = doc("a", d)
		}
		return d
	}
	if _, err := read(rawMsg(1, 0, bodySection(nest(MaxBSONDepth)))); err != nil {
		t.Fatalf("depth %d rejected: %v", MaxBSONDepth, err)
	}
	_, err := read(rawMsg(1, 0, bodySection(nest(MaxBSONDepth+1))))
	protoErr(t, err, false, errs.InvalidBSON)
}

func TestReadMessageFraming(t *testing.T) {
	good := AppendMsg(nil, 1, 0, 0, doc("ping", 1))
	t.Run("empty stream", func(t *testing.T) {
		if _, err := read(nil); err != io.EOF {
			t.Fatalf("got %v, want io.EOF", err)
		}
	})
	for _, n := range []int{1, 15, 16, 17, len(good) - 1} {
		t.Run("truncated", func(t *testing.T) {
			_, err := read(good[:n])
			protoErr(t, err, true, errs.ProtocolError)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("cut at %d: %v does not wrap io.ErrUnexpectedEOF", n, err)
			}
		})
	}
	for _, l := range []int32{0, -1, 15, MaxMessageSizeBytes + 1, -2147483648} {
		t.Run("bad length", func(t *testing.T) {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b, uint32(l))
			_, err := read(b)
			pe := protoErr(t, err, true, errs.ProtocolError)
			if pe.Header.MessageLength != l {
				t.Errorf("header length %d, want %d", pe.Header.MessageLength, l)
			}
		})
	}
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := ReadMessage(io.MultiReader(bytes.NewReader(good[:20]), errReader{boom}))
		protoErr(t, err, true, errs.ProtocolError)
		if !errors.Is(err, boom) {
			t.Errorf("%v does not wrap the I/O error", err)
		}
	})
	t.Run("minimum length unknown opcode", func(t *testing.T) {
		b := finishMessage(appendHeader(nil, 4, 0, OpCode(1234)), 0)
		m, err := read(b)
		if err != nil {
			t.Fatal(err)
		}
		if u := m.(*Unknown); len(u.Body) != 0 || u.OpCode != 1234 {
			t.Fatalf("bad unknown %+v", u)
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestOversizedDeclaredLengthDoesNotAllocate(t *testing.T) {
	b := appendHeader(nil, 1, 0, OpMsgCode)
	binary.LittleEndian.PutUint32(b, MaxMessageSizeBytes)
	b = append(b, 0, 0, 0, 0, 0)
	// The bytes allocated by a fixed number of reads (testing.Benchmark
	// would run for a second and more to say the same).
	const reads = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < reads; i++ {
		_, err := read(b)
		var pe *ProtocolError
		if !errors.As(err, &pe) || !pe.Fatal {
			t.Fatalf("got %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / reads; per > 2*readChunk {
		t.Fatalf("reading a 48 MB header with no body allocated %d bytes", per)
	}
}

func TestLargeMessageGrowsBuffer(t *testing.T) {
	// Several MiB spread over documents in a sequence: exercises buffer growth.
	docs := make([]bsoncore.Document, 40)
	pad := strings.Repeat("y", 100*1024)
	for i := range docs {
		docs[i] = bsoncore.NewDocumentBuilder().AppendInt32("i", int32(i)).AppendString("p", pad).Build()
	}
	b := AppendMsgSequences(nil, 1, 0, ChecksumPresent, doc("insert", "c"), Sequence{Identifier: "documents", Documents: docs})
	m, err := ReadMessage(io.MultiReader(bytes.NewReader(b[:3000]), bytes.NewReader(b[3000:])))
	if err != nil {
		t.Fatal(err)
	}
	got := m.(*Msg).Sequences[0].Documents
	if len(got) != len(docs) {
		t.Fatalf("%d documents, want %d", len(got), len(docs))
	}
	for i := range docs {
		if !bytes.Equal(got[i], docs[i]) {
			t.Fatalf("document %d differs", i)
		}
	}
}

func TestUnknownOpcodeContinues(t *testing.T) {
	legacy := finishMessage(append(appendHeader(nil, 5, 0, OP_INSERT), 1, 2, 3, 4), 0)
	stream := append(legacy, AppendMsg(nil, 6, 0, 0, doc("ping", 1))...)
	r := bytes.NewReader(stream)
	m, err := ReadMessage(r)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := m.(*Unknown)
	if !ok || u.OpCode != OP_INSERT || u.RequestID != 5 || !bytes.Equal(u.Body, []byte{1, 2, 3, 4}) {
		t.Fatalf("got %#v", m)
	}
	if m, err = ReadMessage(r); err != nil || m.MessageHeader().RequestID != 6 {
		t.Fatalf("following message: %v %v", m, err)
	}
}

func TestDecodeMessage(t *testing.T) {
	good := AppendMsg(nil, 1, 0, 0, doc("ping", 1))
	if m, err := DecodeMessage(good); err != nil || m.(*Msg).RequestID != 1 {
		t.Fatalf("DecodeMessage: %v %v", m, err)
	}
	_, err := DecodeMessage(append(bytes.Clone(good), 0))
	protoErr(t, err, true, errs.ProtocolError)
	_, err = DecodeMessage(good[:10])
	protoErr(t, err, true, errs.ProtocolError)
}

func TestOpCodeString(t *testing.T) {
	if OP_MSG.String() != "OP_MSG" || OP_QUERY.String() != "OP_QUERY" || OpCode(5).String() != "opcode(5)" {
		t.Fatal("bad opcode names")
	}
	if OP_REPLY != 1 || OP_UPDATE != 2001 || OP_INSERT != 2002 || OP_QUERY != 2004 || OP_GET_MORE != 2005 ||
		OP_DELETE != 2006 || OP_KILL_CURSORS != 2007 || OP_COMPRESSED != 2012 || OP_MSG != 2013 {
		t.Fatal("opcode values")
	}
}

// readInsertMsg encodes an OP_MSG of body and, unless nil, a "documents"
// sequence of seq, and reads it back.
func readInsertMsg(t *testing.T, body bsoncore.Document, seq []bsoncore.Document) *Msg {
	t.Helper()
	var b []byte
	if seq == nil {
		b = AppendMsg(nil, 1, 0, 0, body)
	} else {
		b = AppendMsgSequences(nil, 1, 0, 0, body, Sequence{Identifier: "documents", Documents: seq})
	}
	m, err := read(b)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*Msg)
}

// TestMsgDepth checks the depth the validating pass measures: the body's
// own nesting, and a sequence's documents counted as merged (two levels
// below the body), whichever is deeper.
func TestMsgDepth(t *testing.T) {
	nest := func(depth int) bsoncore.Document {
		d := doc("x", 1)
		for i := 0; i < depth; i++ {
			d = doc("a", d)
		}
		return d
	}
	for _, c := range []struct {
		name  string
		body  bsoncore.Document
		seq   []bsoncore.Document
		depth int
	}{
		{"flat body", doc("ping", 1, "$db", "admin"), nil, 0},
		{"nested body", doc("insert", "c", "$db", "t", "f", nest(3)), nil, 4},
		{"flat sequence", doc("insert", "c", "$db", "t"), []bsoncore.Document{doc("_id", 1)}, 2},
		{"deepest document", doc("insert", "c", "$db", "t"), []bsoncore.Document{nest(1), nest(5), nest(2)}, 7},
		{"body deeper", doc("insert", "c", "$db", "t", "f", nest(9)), []bsoncore.Document{nest(5)}, 10},
	} {
		if got := readInsertMsg(t, c.body, c.seq).Depth; got != c.depth {
			t.Errorf("%s: depth %d, want %d", c.name, got, c.depth)
		}
	}
}

// TestMsgZeroTimestamp checks that the validating pass reports a
// Timestamp(0, 0) wherever it sits (the body, a sequence's document, a
// nested value), and no other timestamp.
func TestMsgZeroTimestamp(t *testing.T) {
	ts := func(tsec, inc uint32) bsoncore.Document {
		return bsoncore.NewDocumentBuilder().AppendTimestamp("t", tsec, inc).Build()
	}
	for _, c := range []struct {
		name string
		body bsoncore.Document
		seq  []bsoncore.Document
		want bool
	}{
		{"none", doc("insert", "c", "$db", "t"), []bsoncore.Document{doc("_id", 1)}, false},
		{"nonzero", doc("insert", "c", "$db", "t"), []bsoncore.Document{ts(1, 0), ts(0, 1)}, false},
		{"in a sequence", doc("insert", "c", "$db", "t"), []bsoncore.Document{doc("_id", 1), ts(0, 0)}, true},
		{"nested in a sequence", doc("insert", "c", "$db", "t"), []bsoncore.Document{doc("a", doc("b", ts(0, 0)))}, true},
		{"in the body", doc("insert", "c", "$db", "t", "documents", doc("0", ts(0, 0))), nil, true},
	} {
		if got := readInsertMsg(t, c.body, c.seq).ZeroTimestamp; got != c.want {
			t.Errorf("%s: ZeroTimestamp %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMsgIDFirst checks what the validating pass reports of a document
// sequence's _ids: IDFirst only when every document's first field is _id
// and no other top-level field is, whatever the embedded documents hold.
func TestMsgIDFirst(t *testing.T) {
	empty := bsoncore.NewDocumentBuilder().Build()
	body := doc("insert", "c", "$db", "t")
	for _, c := range []struct {
		name string
		seq  []bsoncore.Document
		want bool
	}{
		{"each _id first", []bsoncore.Document{doc("_id", 1, "a", 2), doc("_id", "x")}, true},
		{"an _id alone", []bsoncore.Document{doc("_id", 1)}, true},
		{"embedded _ids do not count", []bsoncore.Document{doc("_id", 1, "a", doc("_id", 2), "b", doc("x", doc("_id", 3)))}, true},
		{"one without _id", []bsoncore.Document{doc("_id", 1), doc("a", 1)}, false},
		{"an _id second", []bsoncore.Document{doc("_id", 1), doc("a", 1, "_id", 2)}, false},
		{"a second _id", []bsoncore.Document{doc("_id", 1, "a", 1, "_id", 2)}, false},
		{"a second _id last of many", []bsoncore.Document{doc("_id", 1), doc("_id", 2, "a", 1, "b", 2, "_id", 3)}, false},
		{"an empty document", []bsoncore.Document{doc("_id", 1), empty}, false},
		{"an embedded _id first", []bsoncore.Document{doc("a", doc("_id", 1))}, false},
		{"names near _id", []bsoncore.Document{doc("_i", 1), doc("_idx", 1)}, false},
		{"names near _id after _id", []bsoncore.Document{doc("_id", 1, "_i", 1, "_idx", 2, "id", 3)}, true},
	} {
		m := readInsertMsg(t, body, c.seq)
		if len(m.Sequences) != 1 || m.Sequences[0].IDFirst != c.want {
			t.Errorf("%s: sequences %+v, want one with IDFirst %v", c.name, m.Sequences, c.want)
		}
	}
}

// TestMsgCommandKeepsStatements: Command returns the body alone when the
// one sequence is the named statements, Merged's document for any other
// sequence or several, and still refuses a sequence named like a body
// field.
func TestMsgCommandKeepsStatements(t *testing.T) {
	body := doc("insert", "c", "$db", "test")
	d := doc("_id", 1)
	m := &Msg{Body: body, Sequences: []Sequence{{Identifier: "documents", Documents: []bsoncore.Document{d}}}}
	if got, err := m.Command("documents"); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("Command(documents) = %v, %v; want the body", got, err)
	}
	merged, _ := m.Merged()
	for _, keep := range []string{"", "updates"} {
		if got, err := m.Command(keep); err != nil || !bytes.Equal(got, merged) {
			t.Fatalf("Command(%q) = %v, %v; want the merged command", keep, got, err)
		}
	}
	two := &Msg{Body: body, Sequences: []Sequence{{Identifier: "documents", Documents: []bsoncore.Document{d}}, {Identifier: "other"}}}
	if got, err := two.Command("documents"); err != nil || bytes.Equal(got, body) {
		t.Fatalf("Command with two sequences = %v, %v; want them merged", got, err)
	}
	dup := &Msg{Body: doc("insert", "c", "documents", "oops"), Sequences: []Sequence{{Identifier: "documents", Documents: []bsoncore.Document{d}}}}
	if _, err := dup.Command("documents"); !errs.Is(err, 40433) {
		t.Fatalf("Command with a duplicate body field: %v, want code 40433", err)
	}
}
