package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"

	"github.com/lodedb/lode/internal/errs"
)

// readChunk is the most ReadMessage allocates before bytes actually arrive:
// larger messages grow their buffer as data comes in, so a peer that
// declares 48 MB and sends nothing costs at most this much.
const readChunk = 1 << 20

// ReadMessage reads exactly one message from r and decodes it.
//
// It returns io.EOF, unwrapped, if r ends cleanly before the first byte of a
// message. Any other failure is a *ProtocolError; see its documentation for
// when the connection must be closed. OP_MSG and OP_QUERY decode to *Msg and
// *Query; every other opcode yields *Unknown with its raw body.
func ReadMessage(r io.Reader) (Message, error) {
	if br, ok := r.(*bufio.Reader); ok {
		// The header is read where it lies in the reader's buffer, and
		// then with the body: no header array escapes to the heap.
		if p, err := br.Peek(HeaderLen); err == nil {
			h := parseHeader((*[HeaderLen]byte)(p))
			if err := checkLength(h); err != nil {
				_, _ = br.Discard(HeaderLen) // read, as the general path does
				return nil, err
			}
			total := int(h.MessageLength)
			if mem := takeMem(total); mem != nil {
				return readBody(r, h, mem.buf[:0], mem)
			}
			var mem *msgMem
			if memClassFor(total) >= 0 {
				mem = &msgMem{}
			}
			return readBody(r, h, make([]byte, 0, min(memRound(total), readChunk)), mem)
		}
		// Too short: nothing was consumed; the general path reports it.
	}
	var hb [HeaderLen]byte
	if n, err := io.ReadFull(r, hb[:]); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fatal(err, errs.ProtocolError, "reading message header")
	}
	h := parseHeader(&hb)
	if err := checkLength(h); err != nil {
		return nil, err
	}
	buf := make([]byte, HeaderLen, min(int(h.MessageLength), readChunk))
	copy(buf, hb[:])
	return readBody(r, h, buf, nil)
}

// checkLength refuses a header whose message length is out of bounds.
func checkLength(h Header) error {
	if h.MessageLength < HeaderLen || h.MessageLength > MaxMessageSizeBytes {
		pe := fatal(nil, errs.ProtocolError, "recv(): message msgLen %d is invalid. Min %d Max: %d",
			h.MessageLength, HeaderLen, MaxMessageSizeBytes)
		pe.Header = h
		return pe
	}
	return nil
}

// readBody reads the rest of the message h heads into buf, which holds
// its first len(buf) bytes, growing it as data arrives, and decodes it.
// mem, when not nil, is the pooled memory the message is read into
// (msgmem.go): buf is its buffer, or becomes it.
func readBody(r io.Reader, h Header, buf []byte, mem *msgMem) (Message, error) {
	total := int(h.MessageLength)
	for len(buf) < total {
		if len(buf) == cap(buf) {
			nb := make([]byte, len(buf), min(2*cap(buf), memRound(total)))
			copy(nb, buf)
			buf = nb
		}
		n, err := io.ReadFull(r, buf[len(buf):min(cap(buf), total)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			pe := fatal(err, errs.ProtocolError, "reading %v body: got %d of %d bytes",
				h.OpCode, len(buf), total)
			pe.Header = h
			return nil, pe
		}
	}
	if mem != nil {
		mem.buf = buf
	}
	return decode(h, buf, mem)
}

// DecodeMessage decodes one complete message held in raw (header included),
// which must be exactly as long as its header declares. The decoded
// documents alias raw. Errors are *ProtocolError as for ReadMessage.
func DecodeMessage(raw []byte) (Message, error) {
	if len(raw) < HeaderLen {
		return nil, fatal(io.ErrUnexpectedEOF, errs.ProtocolError,
			"message of %d bytes is shorter than its header", len(raw))
	}
	h := parseHeader((*[HeaderLen]byte)(raw))
	if h.MessageLength < HeaderLen || h.MessageLength > MaxMessageSizeBytes ||
		int(h.MessageLength) != len(raw) {
		pe := fatal(nil, errs.ProtocolError, "message length %d is invalid for %d bytes",
			h.MessageLength, len(raw))
		pe.Header = h
		return nil, pe
	}
	return decode(h, raw, nil)
}

// decode dispatches on the opcode; raw is the whole message.
func decode(h Header, raw []byte, mem *msgMem) (Message, error) {
	var (
		m   Message
		err *ProtocolError
	)
	switch h.OpCode {
	case OpMsgCode:
		m, err = parseMsg(h, raw, mem)
	case OpQuery:
		m, err = parseQuery(h, raw)
	default:
		return &Unknown{Header: h, Body: raw[HeaderLen:len(raw):len(raw)]}, nil
	}
	if err != nil {
		err.Header = h
		if h.OpCode == OpMsgCode && len(raw) >= HeaderLen+4 {
			err.MoreToCome = binary.LittleEndian.Uint32(raw[HeaderLen:])&MoreToCome != 0
		}
		return nil, err
	}
	return m, nil
}
