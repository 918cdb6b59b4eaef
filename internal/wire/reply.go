package wire

import (
	"encoding/binary"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// OP_REPLY responseFlags bits.
const (
	ReplyCursorNotFound   int32 = 1 << 0
	ReplyQueryFailure     int32 = 1 << 1
	ReplyShardConfigStale int32 = 1 << 2
	ReplyAwaitCapable     int32 = 1 << 3
)

// Reply is a decoded OP_REPLY. Servers only send it; ParseReply exists for
// clients and tests.
type Reply struct {
	Header
	// ResponseFlags are the OP_REPLY flag bits.
	ResponseFlags int32
	// CursorID is the cursor, 0 if exhausted.
	CursorID int64
	// StartingFrom is the position of the first document in the cursor.
	StartingFrom int32
	// Documents are the returned documents.
	Documents []bsoncore.Document
}

// ParseReply decodes an OP_REPLY, which ReadMessage returns as *Unknown.
func ParseReply(u *Unknown) (*Reply, error) {
	if u.OpCode != OpReply {
		return nil, errs.New(errs.ProtocolError, "expected OP_REPLY, got %v", u.OpCode)
	}
	b := u.Body
	if len(b) < 20 {
		return nil, errs.New(errs.ProtocolError, "OP_REPLY is too short")
	}
	r := &Reply{
		Header:        u.Header,
		ResponseFlags: int32(binary.LittleEndian.Uint32(b)),
		CursorID:      int64(binary.LittleEndian.Uint64(b[4:])),
		StartingFrom:  int32(binary.LittleEndian.Uint32(b[12:])),
	}
	n := int32(binary.LittleEndian.Uint32(b[16:]))
	b = b[20:]
	if n < 0 || int(n) > len(b)/5 {
		return nil, errs.New(errs.ProtocolError, "OP_REPLY numberReturned %d is invalid", n)
	}
	r.Documents = make([]bsoncore.Document, 0, n)
	for i := int32(0); i < n; i++ {
		doc, rest, perr := readDocument(b, "OP_REPLY document")
		if perr != nil {
			return nil, perr.Err
		}
		r.Documents, b = append(r.Documents, doc), rest
	}
	if len(b) > 0 {
		return nil, errs.New(errs.ProtocolError, "OP_REPLY has %d trailing bytes", len(b))
	}
	return r, nil
}

// AppendReply appends an OP_REPLY holding docs to dst and returns the
// extended slice.
func AppendReply(dst []byte, requestID, responseTo int32, responseFlags int32, cursorID int64,
	startingFrom int32, docs ...bsoncore.Document) []byte {
	start := len(dst)
	dst = appendHeader(dst, requestID, responseTo, OpReply)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(responseFlags))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(cursorID))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(startingFrom))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(docs)))
	for _, d := range docs {
		dst = append(dst, d...)
	}
	return finishMessage(dst, start)
}
