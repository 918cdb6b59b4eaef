// Package wire encodes and decodes MongoDB wire-protocol messages: OP_MSG,
// legacy OP_QUERY (for the hello/isMaster handshake) and OP_REPLY, with the
// size limits MongoDB 7.0 enforces.
//
// The package does framing and validation only. It knows nothing about
// commands or connections: ReadMessage returns one validated message, or a
// *ProtocolError that says whether the byte stream is still usable.
//
// Every message read is backed by a single buffer; the documents of a Msg or
// Query are sub-slices of it, so they stay valid as long as the message is
// referenced and must be copied if they must outlive it and the caller means
// to reuse memory.
package wire

import "fmt"

// Size limits, as advertised by mongod in its hello reply.
const (
	// MaxBSONObjectSize is the largest document a user may store (16 MiB).
	MaxBSONObjectSize = 16 * 1024 * 1024
	// MaxMessageSizeBytes is the largest wire message accepted, header included.
	MaxMessageSizeBytes = 48000000
	// MaxWriteBatchSize is the largest number of statements in one write command.
	MaxWriteBatchSize = 100000

	// MaxInternalBSONObjectSize is the largest document accepted on the wire:
	// MaxBSONObjectSize plus 16 KiB of slack for command overhead, as in mongod
	// (BSONObjMaxInternalSize).
	MaxInternalBSONObjectSize = MaxBSONObjectSize + 16*1024

	// HeaderLen is the size of the standard message header.
	HeaderLen = 16
)

// OpCode identifies the kind of a wire message.
type OpCode int32

// Opcodes of the MongoDB wire protocol.
const (
	OpReply       OpCode = 1
	OpUpdate      OpCode = 2001
	OpInsert      OpCode = 2002
	OpQuery       OpCode = 2004
	OpGetMore     OpCode = 2005
	OpDelete      OpCode = 2006
	OpKillCursors OpCode = 2007
	OpCompressed  OpCode = 2012
	OpMsgCode     OpCode = 2013
)

// Aliases spelled as in the MongoDB documentation.
const (
	OP_REPLY        = OpReply
	OP_UPDATE       = OpUpdate
	OP_INSERT       = OpInsert
	OP_QUERY        = OpQuery
	OP_GET_MORE     = OpGetMore
	OP_DELETE       = OpDelete
	OP_KILL_CURSORS = OpKillCursors
	OP_COMPRESSED   = OpCompressed
	OP_MSG          = OpMsgCode
)

// String returns the documented name of the opcode, e.g. "OP_MSG".
func (c OpCode) String() string {
	switch c {
	case OpReply:
		return "OP_REPLY"
	case OpUpdate:
		return "OP_UPDATE"
	case OpInsert:
		return "OP_INSERT"
	case OpQuery:
		return "OP_QUERY"
	case OpGetMore:
		return "OP_GET_MORE"
	case OpDelete:
		return "OP_DELETE"
	case OpKillCursors:
		return "OP_KILL_CURSORS"
	case OpCompressed:
		return "OP_COMPRESSED"
	case OpMsgCode:
		return "OP_MSG"
	}
	return fmt.Sprintf("opcode(%d)", int32(c))
}
