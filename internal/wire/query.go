package wire

import (
	"bytes"
	"encoding/binary"
	"strings"

	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// OP_QUERY flag bits (the Flags field of Query).
const (
	QueryTailableCursor  int32 = 1 << 1
	QuerySecondaryOk     int32 = 1 << 2
	QueryNoCursorTimeout int32 = 1 << 4
	QueryAwaitData       int32 = 1 << 5
	QueryExhaust         int32 = 1 << 6
	QueryPartial         int32 = 1 << 7
)

// Query is a decoded legacy OP_QUERY. MongoDB 7.0 accepts it only for the
// connection handshake (hello / isMaster on admin.$cmd).
type Query struct {
	Header
	// Flags are the OP_QUERY flag bits.
	Flags int32
	// FullCollectionName is "db.collection", e.g. "admin.$cmd".
	FullCollectionName string
	// NumberToSkip is the number of documents to skip.
	NumberToSkip int32
	// NumberToReturn is the requested batch size.
	NumberToReturn int32
	// Query is the query (for $cmd: the command) document.
	Query bsoncore.Document
	// ReturnFieldsSelector is the optional projection; nil when absent.
	ReturnFieldsSelector bsoncore.Document
}

// Database returns the database part of FullCollectionName.
func (q *Query) Database() string {
	if i := strings.IndexByte(q.FullCollectionName, '.'); i >= 0 {
		return q.FullCollectionName[:i]
	}
	return q.FullCollectionName
}

// Collection returns the collection part of FullCollectionName ("" if none).
func (q *Query) Collection() string {
	if i := strings.IndexByte(q.FullCollectionName, '.'); i >= 0 {
		return q.FullCollectionName[i+1:]
	}
	return ""
}

// parseQuery decodes an OP_QUERY; raw is the whole message.
func parseQuery(h Header, raw []byte) (*Query, *ProtocolError) {
	b := raw[HeaderLen:]
	if len(b) < 4 {
		return nil, badMessage(errs.ProtocolError, "OP_QUERY is too short to hold its flags")
	}
	q := &Query{Header: h, Flags: int32(binary.LittleEndian.Uint32(b))}
	b = b[4:]
	nul := bytes.IndexByte(b, 0)
	if nul < 0 {
		return nil, badMessage(errs.ProtocolError, "OP_QUERY collection name is not NUL-terminated")
	}
	q.FullCollectionName = string(b[:nul])
	b = b[nul+1:]
	if len(b) < 8 {
		return nil, badMessage(errs.ProtocolError, "OP_QUERY truncated before numberToReturn")
	}
	q.NumberToSkip = int32(binary.LittleEndian.Uint32(b))
	q.NumberToReturn = int32(binary.LittleEndian.Uint32(b[4:]))
	b = b[8:]
	var perr *ProtocolError
	if q.Query, b, perr = readDocument(b, "OP_QUERY query"); perr != nil {
		return nil, perr
	}
	if len(b) > 0 {
		if q.ReturnFieldsSelector, b, perr = readDocument(b, "OP_QUERY returnFieldsSelector"); perr != nil {
			return nil, perr
		}
	}
	if len(b) > 0 {
		return nil, badMessage(errs.ProtocolError, "OP_QUERY has %d trailing bytes", len(b))
	}
	return q, nil
}
