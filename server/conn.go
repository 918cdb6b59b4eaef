package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/errs"
	"github.com/lodedb/lode/wire"
)

// conn is one client connection. Requests on a connection are handled one
// at a time, in order, as the wire protocol requires.
type conn struct {
	s      *Server
	nc     net.Conn
	id     int64
	r      *bufio.Reader
	out    []byte
	reqID  atomic.Int32
	client bsoncore.Document // client metadata from the first hello
}

func (s *Server) newConn(nc net.Conn) *conn {
	c := &conn{s: s, nc: nc, id: s.nextConnID.Add(1), r: bufio.NewReaderSize(nc, 64<<10)}
	return c
}

func (c *conn) serve() {
	s := c.s
	s.stats.connOpened()
	defer s.stats.connClosed()
	defer c.nc.Close()
	log := s.log.With("conn", c.id, "remote", c.nc.RemoteAddr().String())
	log.Debug("connection accepted")
	for {
		msg, err := wire.ReadMessage(c.r)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				log.Debug("connection closed")
				return
			}
			var pe *wire.ProtocolError
			if errors.As(err, &pe) && !pe.Fatal {
				// Framing is intact: answer with an error and go on.
				log.Debug("bad message", "err", err)
				if pe.MoreToCome {
					continue
				}
				if werr := c.replyError(pe.Header, pe.Err); werr != nil {
					return
				}
				continue
			}
			log.Debug("closing connection on unreadable message", "err", err)
			return
		}
		if err := c.handle(msg); err != nil {
			log.Debug("write failed", "err", err)
			return
		}
	}
}

// handle answers one message. It returns an error only when the
// connection must be closed.
func (c *conn) handle(m wire.Message) error {
	switch m := m.(type) {
	case *wire.Msg:
		cmd, err := m.Merged()
		if err != nil {
			return c.writeMsg(m.Header.RequestID, errorDoc(err))
		}
		moreToCome := m.FlagBits&wire.MoreToCome != 0
		reply := c.s.dispatch(context.Background(), c, cmd, moreToCome)
		if moreToCome {
			return nil
		}
		return c.writeMsg(m.Header.RequestID, reply)
	case *wire.Query:
		reply := c.handleOpQuery(m)
		return c.writeReply(m.Header.RequestID, reply)
	default:
		h := m.MessageHeader()
		err := errs.New(errs.ProtocolError, "Unsupported opcode %d; only OP_MSG and the OP_QUERY handshake are supported", h.OpCode)
		return c.writeMsg(h.RequestID, errorDoc(err))
	}
}

// replyError answers a message that could be framed but not decoded.
func (c *conn) replyError(h wire.Header, err error) error {
	if h.OpCode == wire.OpQuery {
		return c.writeReply(h.RequestID, errorDoc(err))
	}
	return c.writeMsg(h.RequestID, errorDoc(err))
}

func (c *conn) writeMsg(responseTo int32, body bsoncore.Document) error {
	c.out = wire.AppendMsg(c.out[:0], c.reqID.Add(1), responseTo, 0, body)
	_, err := c.nc.Write(c.out)
	c.trimBuffer()
	return err
}

func (c *conn) writeReply(responseTo int32, doc bsoncore.Document) error {
	c.out = wire.AppendReply(c.out[:0], c.reqID.Add(1), responseTo, 0, 0, 0, doc)
	_, err := c.nc.Write(c.out)
	c.trimBuffer()
	return err
}

// trimBuffer drops a large reply buffer so one big batch does not pin
// memory for the connection's lifetime.
func (c *conn) trimBuffer() {
	if cap(c.out) > 1<<20 {
		c.out = nil
	}
}
