package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// doc builds {k: int32 v, ...} from alternating keys and values.
func doc(kv ...any) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		switch v := kv[i+1].(type) {
		case int:
			b.AppendInt32(k, int32(v))
		case string:
			b.AppendString(k, v)
		case bool:
			b.AppendBoolean(k, v)
		case bsoncore.Document:
			b.AppendDocument(k, v)
		default:
			panic("unsupported")
		}
	}
	return b.Build()
}

// rawMsg assembles an OP_MSG by hand: header, flags, then raw section bytes.
func rawMsg(requestID int32, flags uint32, sections ...[]byte) []byte {
	b := appendHeader(nil, requestID, 0, OpMsgCode)
	b = binary.LittleEndian.AppendUint32(b, flags)
	for _, s := range sections {
		b = append(b, s...)
	}
	return finishMessage(b, 0)
}

// bodySection returns a kind-0 section.
func bodySection(d []byte) []byte { return append([]byte{0}, d...) }

// seqSection returns a kind-1 section with the given identifier and documents.
func seqSection(id string, docs ...[]byte) []byte {
	b := []byte{1, 0, 0, 0, 0}
	b = append(b, id...)
	b = append(b, 0)
	for _, d := range docs {
		b = append(b, d...)
	}
	binary.LittleEndian.PutUint32(b[1:], uint32(len(b)-1))
	return b
}

// protoErr asserts err is a *ProtocolError with the given fatality and code.
func protoErr(t *testing.T, err error, fatal bool, code errs.Code) *ProtocolError {
	t.Helper()
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ProtocolError", err, err)
	}
	if pe.Fatal != fatal {
		t.Fatalf("Fatal = %v, want %v (err %v)", pe.Fatal, fatal, err)
	}
	if pe.Err == nil || pe.Err.Code != code {
		t.Fatalf("code = %v, want %v (err %v)", pe.Err, code, err)
	}
	if e := errs.As(err); e.Code != code {
		t.Fatalf("errs.As code = %v, want %v", e.Code, code)
	}
	return pe
}

// read decodes a single message from b via ReadMessage.
func read(b []byte) (Message, error) { return ReadMessage(bytes.NewReader(b)) }
