package wire

import (
	"bytes"
	"errors"
	"io"
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
