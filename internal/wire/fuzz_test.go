package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// checkDoc fails the test unless d passes bsoncore validation at every
// nesting level.
func checkDoc(t *testing.T, d bsoncore.Document, depth int) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatalf("returned document fails validation: %v", err)
	}
	if n, _, ok := bsoncore.ReadLength(d); !ok || int(n) != len(d) {
		t.Fatal("document length prefix does not match its slice")
	}
	elems, err := d.Elements()
	if err != nil {
		t.Fatalf("returned document has bad elements: %v", err)
	}
	for _, e := range elems {
		if err := e.Validate(); err != nil {
			t.Fatalf("bad element: %v", err)
		}
		v := e.Value()
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			checkDoc(t, v.Document(), depth+1)
		case bsoncore.TypeArray:
			checkDoc(t, bsoncore.Document(v.Array()), depth+1)
		case bsoncore.TypeCodeWithScope:
			_, scope := v.CodeWithScope()
			checkDoc(t, scope, depth+1)
		}
		_ = v.String() // must not panic
	}
}

func FuzzReadMessage(f *testing.F) {
	body := doc("insert", "c", "$db", "test")
	d := doc("a", 1, "s", "x", "n", doc("b", true))
	f.Add(AppendMsg(nil, 1, 0, 0, body))
	f.Add(AppendMsg(nil, 1, 0, ChecksumPresent|MoreToCome, body))
	f.Add(AppendMsgSequences(nil, 2, 0, 0, body, Sequence{Identifier: "documents", Documents: []bsoncore.Document{d, d}}))
	f.Add(AppendMsgSequences(nil, 2, 0, ChecksumPresent, body, Sequence{Identifier: "documents", Documents: []bsoncore.Document{d}},
		Sequence{Identifier: "updates"}))
	f.Add(AppendQuery(nil, 3, 0, "admin.$cmd", 0, -1, doc("isMaster", 1), nil))
	f.Add(AppendQuery(nil, 3, 0, "admin.$cmd", 0, -1, doc("hello", 1), doc("x", 1)))
	f.Add(AppendReply(nil, 4, 3, 0, 0, 0, d))
	f.Add(append(AppendMsg(nil, 1, 0, 0, body), AppendQuery(nil, 3, 0, "a.b", 0, 0, d, nil)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for range 8 {
			m, err := ReadMessage(r)
			if err != nil {
				var pe *ProtocolError
				if err == io.EOF {
					return
				}
				if !errors.As(err, &pe) || pe.Err == nil {
					t.Fatalf("error %v is not a *ProtocolError", err)
				}
				if pe.Fatal {
					return
				}
				continue
			}
			if m == nil {
				t.Fatal("nil message without error")
			}
			switch m := m.(type) {
			case *Msg:
				checkDoc(t, m.Body, 0)
				for _, s := range m.Sequences {
					for _, sd := range s.Documents {
						checkDoc(t, sd, 0)
					}
				}
				merged, err := m.Merged()
				if err != nil {
					t.Fatalf("Merged of an accepted message: %v", err)
				}
				checkDoc(t, merged, 0)
			case *Query:
				checkDoc(t, m.Query, 0)
				if m.ReturnFieldsSelector != nil {
					checkDoc(t, m.ReturnFieldsSelector, 0)
				}
			case *Unknown:
				if int(m.MessageLength) != len(m.Body)+HeaderLen {
					t.Fatal("unknown body length mismatch")
				}
				if m.OpCode == OpReply {
					if rep, err := ParseReply(m); err == nil {
						for _, rd := range rep.Documents {
							checkDoc(t, rd, 0)
						}
					}
				}
			default:
				t.Fatalf("unexpected message type %T", m)
			}
		}
	})
}

// FuzzReadMessageBuffered: reading through a bufio.Reader (the server's
// path, which takes the header from the reader's buffer) gives the same
// messages and errors as reading the same bytes from a plain reader.
func FuzzReadMessageBuffered(f *testing.F) {
	body := doc("insert", "c", "$db", "test")
	d := doc("a", 1, "s", "x", "n", doc("b", true))
	f.Add(AppendMsg(nil, 1, 0, 0, body), 16)
	f.Add(AppendMsgSequences(nil, 2, 0, 0, body, Sequence{Identifier: "documents", Documents: []bsoncore.Document{d, d}}), 64)
	f.Add(AppendQuery(nil, 3, 0, "admin.$cmd", 0, -1, doc("hello", 1), nil), 4096)
	f.Add(append(AppendMsg(nil, 1, 0, 0, body), 0xff, 0xff, 0xff, 0x7f, 1, 2, 3), 16)
	f.Add([]byte{1, 2, 3}, 16)
	f.Fuzz(func(t *testing.T, data []byte, size int) {
		plain := bytes.NewReader(data)
		buffered := bufio.NewReaderSize(bytes.NewReader(data), 16+size%4096)
		for range 8 {
			m1, err1 := ReadMessage(plain)
			m2, err2 := ReadMessage(buffered)
			if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
				t.Fatalf("plain: %v, buffered: %v", err1, err2)
			}
			if !reflect.DeepEqual(m1, m2) {
				t.Fatalf("plain read %#v, buffered %#v", m1, m2)
			}
			var pe *ProtocolError
			if err1 == io.EOF || (errors.As(err1, &pe) && pe.Fatal) {
				return
			}
		}
	})
}
