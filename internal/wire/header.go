package wire

import "encoding/binary"

// Header is the standard 16-byte header that starts every wire message.
type Header struct {
	// MessageLength is the total message size in bytes, header included.
	MessageLength int32
	// RequestID identifies the message; replies echo it in ResponseTo.
	RequestID int32
	// ResponseTo is the RequestID of the request this message answers.
	ResponseTo int32
	// OpCode is the message kind.
	OpCode OpCode
}

// MessageHeader returns the header; it makes every message type embedding a
// Header satisfy Message.
func (h *Header) MessageHeader() Header { return *h }

// parseHeader decodes a header from its 16 bytes.
func parseHeader(b *[HeaderLen]byte) Header {
	return Header{
		MessageLength: int32(binary.LittleEndian.Uint32(b[0:])),
		RequestID:     int32(binary.LittleEndian.Uint32(b[4:])),
		ResponseTo:    int32(binary.LittleEndian.Uint32(b[8:])),
		OpCode:        OpCode(binary.LittleEndian.Uint32(b[12:])),
	}
}

// appendHeader appends a header whose length is a placeholder; finishMessage
// fills it in.
func appendHeader(dst []byte, requestID, responseTo int32, op OpCode) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, 0)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(requestID))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(responseTo))
	return binary.LittleEndian.AppendUint32(dst, uint32(op))
}

// finishMessage writes the length of the message starting at dst[start:].
func finishMessage(dst []byte, start int) []byte {
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// Message is one decoded wire message: *Msg, *Query or *Unknown.
type Message interface {
	// MessageHeader returns the message's header.
	MessageHeader() Header
	isMessage()
}

// Unknown is a message whose opcode this package does not decode (legacy
// OP_INSERT, OP_COMPRESSED, OP_REPLY sent by a client, ...). The framing was
// intact, so a server can answer "unsupported opcode" and keep reading.
type Unknown struct {
	Header
	// Body is the message after the header.
	Body []byte
}

func (*Unknown) isMessage() {}
func (*Msg) isMessage()     {}
func (*Query) isMessage()   {}
