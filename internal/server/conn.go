package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/lodedb/lode/internal/procs"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/membudget"
	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/internal/wire"
)

// conn is one client connection. Requests on a connection are handled one
// at a time, in order, as the wire protocol requires.
type conn struct {
	s   *Server
	nc  net.Conn // the connection's reads and writes: raw, or TLS over it
	raw net.Conn // the accepted connection; set once, so other goroutines may close it or ask its address
	id  int64
	r   *bufio.Reader
	// loop is raw when it can serve messages inside one wait of the
	// poller (serveloop.go), nil otherwise (TLS, not TCP, not Linux);
	// src is what r reads from while the connection is not TLS.
	loop   loopConn
	src    *connSource
	out    []byte
	reqID  atomic.Int32
	client bsoncore.Document // client metadata from the first hello
	// meta is client, published for other goroutines (currentOp).
	meta  atomic.Pointer[bsoncore.Document]
	authn authnState // authentication (authn.go)
	// closeNow is set by a failpoint's closeConnection (failpoint.go): the
	// command gets no reply and the connection is closed.
	closeNow bool

	op atomic.Pointer[runningOp] // the command running now (currentop.go)
	// opListed: the op registry lists the connection (beginOp); only
	// its goroutine touches it.
	opListed bool
	// remote is raw's remote address as text, made once (remoteAddr).
	remote string
	// lastDB is the $db of the connection's previous command, reused
	// rather than allocated again when the next names the same (dbName).
	lastDB string

	// The disconnect watcher (watchdog.go): a command still running
	// after disconnectCheckDelay gets a goroutine that waits on the socket
	// and cancels it if the client goes away.
	//
	// cmdStart is 0 between commands, the start of the running command
	// (Server.sinceStart) while it runs, and watching once the watchdog
	// started a watcher for it.
	cmdStart  atomic.Int64
	watchMu   sync.Mutex
	watchDone chan struct{} // closed when the watcher let go of the reader
	watchNC   net.Conn      // the watcher's own handle on the socket (poller loop), or nil
	gone      chan struct{} // closed when the watcher saw the client leave
	goneOnce  sync.Once
}

// readBufferSize is the size of a connection's read buffer: the largest
// message the poller loop (serveloop.go) takes whole.
const readBufferSize = 64 << 10

func (s *Server) newConn(nc net.Conn) *conn {
	nc = fastConn(nc)
	c := &conn{s: s, nc: nc, raw: nc, id: s.nextConnID.Add(1), gone: make(chan struct{})}
	c.src = &connSource{nc: nc}
	if lc, ok := nc.(loopConn); ok {
		c.src.lc = lc
	}
	c.r = bufio.NewReaderSize(c.src, readBufferSize)
	return c
}

// dbName returns b as a string, the previous command's when equal: a
// connection mostly works in one database.
func (c *conn) dbName(b []byte) string {
	if c == nil {
		return string(b)
	}
	if c.lastDB != string(b) {
		c.lastDB = string(b)
	}
	return c.lastDB
}

// remoteAddr is the client's address as currentOp and the logs show it.
// The connection's goroutine computes it once; it does not change.
func (c *conn) remoteAddr() string {
	if c.remote == "" && c.raw != nil {
		c.remote = c.raw.RemoteAddr().String()
	}
	return c.remote
}

func (c *conn) serve() {
	s := c.s
	defer s.stats.connClosed() // opened by Serve, which counts it first
	defer c.raw.Close()
	s.ops().listConn(c) // before its first command (watchdog.go)
	defer s.ops().forgetConn(c)
	// The connection's lines, as mongod's: NETWORK, ctx connN (its
	// acceptance and end are logged once each, by Serve).
	log := s.log.With(mongolog.KeyComponent, "NETWORK", mongolog.KeyCtx, "conn"+itoa(c.id), "remote", c.remoteAddr())
	if !c.negotiate(log) { // TLS or not (tls.go)
		return
	}
	timeout := s.messageTimeout()
	for {
		if c.src.lc != nil {
			// Plain TCP on Linux: served inside one wait of the poller
			// (serveloop.go) until the connection ends or a message
			// does not fit in the read buffer, which the general path
			// below reads.
			if !c.serveLoop(log, timeout) {
				return
			}
		}
		// Wait as long as the client likes for a message to begin (idle
		// connections stay open, as with mongod).
		if _, err := c.r.Peek(1); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				log.Debug("connection closed by an error", "err", err)
			}
			return
		}
		if !c.serveOne(log, timeout) {
			return
		}
	}
}

// serveOne reads and answers the message that has begun to arrive,
// giving the rest of it timeout to arrive unless it is already buffered.
// It reports whether the connection goes on.
func (c *conn) serveOne(log *slog.Logger, timeout time.Duration) bool {
	deadline := timeout > 0 && !c.wholeMessageBuffered()
	if deadline {
		_ = c.nc.SetReadDeadline(time.Now().Add(timeout))
	}
	// A large request reserves from the instance's memory budget for
	// itself and what parsing it builds; refused, it is read past and
	// answered with ExceededMemoryLimit, and the connection goes on.
	res := membudget.For(c.s.eng.Params().Budget)
	if refused, err := c.reserveMessage(&res); refused || err != nil {
		if deadline {
			_ = c.nc.SetReadDeadline(time.Time{})
		}
		if err != nil {
			log.Debug("closing connection: reading a refused message", "err", err)
			return false
		}
		return true
	}
	msg, err := wire.ReadMessage(c.r)
	if deadline {
		_ = c.nc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			log.Info("closing connection: a message did not arrive in time", mongolog.KeyID, mongolog.IDConnectionClosedEarly, "timeout", timeout)
			return false
		}
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
			return false // "Connection ended" says it
		}
		var pe *wire.ProtocolError
		if errors.As(err, &pe) && !pe.Fatal {
			// Framing is intact: answer with an error and go on.
			log.Debug("bad message", "err", err)
			if pe.MoreToCome {
				return true
			}
			return c.replyError(pe.Header, pe.Err) == nil
		}
		log.Debug("closing connection on unreadable message", "err", err)
		return false
	}
	procs.Enter()
	err = c.handle(msg)
	procs.Leave()
	res.Release()
	if err != nil {
		log.Debug("write failed", "err", err)
		return false
	}
	return true
}

// messageBudgetFactor is what a request reserves per byte: the message as
// read, its merged command document, and what parsing builds from it (a
// $in's values take about three times their BSON).
const messageBudgetFactor = 4

// reserveMessage reserves the next message's share of the memory budget
// in res. When the budget refuses, it reads the message past, answers it
// with ExceededMemoryLimit (146) unless the client asked for no reply,
// and reports refused; err is a read or write failure.
func (c *conn) reserveMessage(res *membudget.Reservation) (refused bool, err error) {
	// Only the length first: a message may be shorter than a header and
	// its flags, and waiting for bytes that never come would hold back
	// the error reply ReadMessage gives it.
	lb, perr := c.r.Peek(4)
	if perr != nil {
		return false, nil // short: ReadMessage reports it
	}
	n := int64(binary.LittleEndian.Uint32(lb))
	if n <= membudget.Floor || n > wire.MaxMessageSizeBytes || res.Grow(n*messageBudgetFactor) {
		return false, nil
	}
	hdr, perr := c.r.Peek(wire.HeaderLen + 4) // over 1 MiB: these bytes exist
	if perr != nil {
		return false, nil
	}
	h := wire.Header{
		MessageLength: int32(n),
		RequestID:     int32(binary.LittleEndian.Uint32(hdr[4:])),
		OpCode:        wire.OpCode(binary.LittleEndian.Uint32(hdr[12:])),
	}
	flags := binary.LittleEndian.Uint32(hdr[16:])
	if _, err := c.r.Discard(int(n)); err != nil {
		return true, err
	}
	c.s.log.Warn("request refused: the server's memory budget is exhausted", "conn", c.id, "bytes", n,
		"budget_used", res.Budget().Used(), "budget", res.Budget().Limit())
	if h.OpCode == wire.OpMsgCode && flags&wire.MoreToCome != 0 {
		return true, nil
	}
	e := errs.New(errs.ExceededMemoryLimit, "request of %d bytes refused: the server's memory budget (%d bytes) is in use", n, res.Budget().Limit())
	return true, c.replyError(h, e)
}

// wholeMessageBuffered reports whether the next message is already in
// the read buffer in full, so reading it cannot stall.
func (c *conn) wholeMessageBuffered() bool {
	n, known := c.nextMessageLen()
	return known && n > 0 && c.r.Buffered() >= n
}

// nextMessageLen is the length the next message's header declares, when
// its first four bytes are in the read buffer.
func (c *conn) nextMessageLen() (int, bool) {
	if c.r.Buffered() < 4 {
		return 0, false
	}
	h, err := c.r.Peek(4)
	if err != nil {
		return 0, false
	}
	return int(int32(binary.LittleEndian.Uint32(h))), true
}

// handle answers one message. It returns an error only when the
// connection must be closed.
func (c *conn) handle(m wire.Message) error {
	switch m := m.(type) {
	case *wire.Msg:
		return c.handleMsg(m)
	case *wire.Query:
		if !isCommandNS(m.FullCollectionName) {
			return c.writeLegacyError(m.Header.RequestID, "OP_QUERY is no longer supported")
		}
		reply := c.handleOpQuery(m)
		if c.closeNow {
			return errFailCommandClose
		}
		return c.writeReply(m.Header.RequestID, reply)
	default:
		return c.handleLegacy(m.MessageHeader())
	}
}

// handleMsg answers one OP_MSG. A large one (bigMessage or more) first
// takes one of the server's bigSlots, so a burst of huge requests is
// parsed and run a few at a time rather than all at once; one whose
// client leaves while it waits is dropped unparsed.
func (c *conn) handleMsg(m *wire.Msg) error {
	start := time.Now()
	c.beginWatch(start)
	defer c.endWatch()
	if m.Header.MessageLength >= bigMessage {
		select {
		case c.s.bigSlots <- struct{}{}:
		case <-c.gone:
			return errClientGone
		}
		defer func() { <-c.s.bigSlots }()
		select {
		case <-c.gone:
			return errClientGone
		default:
		}
		start = time.Now() // the command starts once it has its slot
	}
	// A write command's statements stay in their sequence (Request.sequence).
	var keep string
	var released *bool
	if len(m.Sequences) == 1 {
		if first, err := m.Body.IndexErr(0); err == nil {
			if _, d := commandName(first.KeyBytes()); d != nil {
				keep = d.stmts
				if d.releasesStmts && m.Pooled() {
					// The message's memory may serve the next message
					// once the handler releases its statements: the
					// body, which the session, the profiler and the
					// logs may keep, is copied out of it first.
					released = new(bool)
					m.Body = bytes.Clone(m.Body)
				}
			}
		}
	}
	cmd, err := m.Command(keep)
	if err != nil {
		return c.writeMsg(m.Header.RequestID, m.FlagBits&wire.ChecksumPresent, errorDoc(err))
	}
	moreToCome := m.FlagBits&wire.MoreToCome != 0
	reply := c.s.dispatchDepth(context.Background(), c, cmd, moreToCome,
		wireFacts{depth: m.Depth, zeroTS: m.ZeroTimestamp, seqs: m.Sequences, released: released}, start)
	if c.closeNow {
		return errFailCommandClose
	}
	if !moreToCome {
		// As mongod does over plain TCP, a checksummed request gets a
		// checksummed reply.
		err = c.writeMsg(m.Header.RequestID, m.FlagBits&wire.ChecksumPresent, reply)
	}
	if released != nil && *released {
		m.Recycle()
	}
	return err
}

// errFailCommandClose closes a connection for a failpoint's closeConnection
// (failCommand, onPrimaryTransactionalWrite).
var errFailCommandClose = errors.New("connection closed by a failpoint")

// bigMessage is the size from which a request waits for a big slot.
const bigMessage = 1 << 20

// errClientGone closes a connection whose client left before its request
// ran.
var errClientGone = errors.New("client disconnected before its request ran")

// handleLegacy answers an opcode other than OP_MSG and OP_QUERY the way
// mongod 7.0 does (service_entry_point_common.cpp): OP_GET_MORE gets an
// OP_REPLY error; the removed fire-and-forget writes (OP_INSERT, OP_UPDATE,
// OP_DELETE, OP_KILL_CURSORS) fail the request, which ends the session; any
// other opcode is logged and gets no reply, and the connection goes on.
// OP_COMPRESSED is never negotiated by Lode, so it cannot be decompressed
// and also ends the session.
func (c *conn) handleLegacy(h wire.Header) error {
	log := c.s.log.With(mongolog.KeyComponent, "NETWORK", mongolog.KeyCtx, "conn"+itoa(c.id), "opcode", int32(h.OpCode))
	switch h.OpCode {
	case wire.OpGetMore:
		return c.writeLegacyError(h.RequestID, "OP_GET_MORE is no longer supported")
	case wire.OpInsert, wire.OpUpdate, wire.OpDelete, wire.OpKillCursors:
		log.Info("closing connection: legacy opcode is no longer supported", "op", h.OpCode.String())
		return fmt.Errorf("%v is no longer supported", h.OpCode)
	case wire.OpCompressed:
		log.Info("closing connection: compression was not negotiated")
		return errors.New("OP_COMPRESSED without a negotiated compressor")
	default:
		log.Info("operation is not supported")
		return nil
	}
}

// writeLegacyError sends mongod's OP_REPLY for a removed legacy read
// opcode: QueryFailure set and {$err, code: 5739101, ok: 0}.
func (c *conn) writeLegacyError(responseTo int32, what string) error {
	doc := bsoncore.NewDocumentBuilder().
		AppendString("$err", what+". The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal").
		AppendInt32("code", 5739101).
		AppendDouble("ok", 0).
		Build()
	c.out = wire.AppendReply(c.out[:0], c.reqID.Add(1), responseTo, wire.ReplyQueryFailure, 0, 0, doc)
	_, err := c.nc.Write(c.out)
	c.trimBuffer()
	return err
}

// isCommandNS reports whether a legacy namespace names a database's
// command pseudo-collection ("db.$cmd").
func isCommandNS(ns string) bool {
	_, coll, ok := splitNS(ns)
	return ok && coll == "$cmd"
}

// replyError answers a message that could be framed but not decoded.
func (c *conn) replyError(h wire.Header, err error) error {
	if h.OpCode == wire.OpQuery {
		return c.writeReply(h.RequestID, errorDoc(err))
	}
	return c.writeMsg(h.RequestID, 0, errorDoc(err))
}

// writeMsg sends an OP_MSG reply; flags may hold ChecksumPresent.
func (c *conn) writeMsg(responseTo int32, flags uint32, body bsoncore.Document) error {
	c.out = wire.AppendMsg(c.out[:0], c.reqID.Add(1), responseTo, flags, body)
	_, err := c.nc.Write(c.out)
	c.trimBuffer()
	return err
}

// writeReply sends the OP_REPLY for a command that came as OP_QUERY. Like
// mongod's LegacyReplyBuilder it sets the AwaitCapable flag, errors
// included (they are command replies with ok: 0).
func (c *conn) writeReply(responseTo int32, doc bsoncore.Document) error {
	c.out = wire.AppendReply(c.out[:0], c.reqID.Add(1), responseTo, wire.ReplyAwaitCapable, 0, 0, doc)
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
