package server

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/lodedb/lode/internal/mongolog"
)

// The poller loop: a plain TCP connection on Linux is served inside one
// wait of the runtime's poller (RawConn.Read) for as long as its messages
// fit in the read buffer. RawConn.Read forgets the socket's readiness
// when it begins, so a read that starts a new call must first look at the
// socket, and after each reply that look finds it empty: one system call
// per request for nothing. Inside one call the poller reports every
// arrival since the last wait, so a loop that read the socket empty may
// wait at once. PostgreSQL's backends do the same with one blocking recv.

// loopConn is a connection that can run the poller loop (rawIOConn).
type loopConn interface {
	// runLoop calls step inside one poller wait until step reports
	// done: when step reports !done, runLoop waits until the socket is
	// readable, its read deadline passes or it is closed (the last two
	// end runLoop with the error). Within step, readNow reads the
	// socket without waiting.
	runLoop(step func() (done bool)) error
	readNow(p []byte) (int, error)
	// watchConn returns a second handle on the socket, with its own
	// poller registration, for the disconnect watcher (watchdog.go): the
	// loop holds the first while a command runs.
	watchConn() (net.Conn, error)
	// peek waits until nc, a watchConn, has data (nil), its peer is
	// gone (io.EOF or the reset) or its read deadline passes; it
	// consumes nothing.
	peek(nc net.Conn) error
}

// errWouldBlock is what readNow returns when the socket has nothing to
// read: the loop then waits.
var errWouldBlock = errors.New("socket has nothing to read")

// connSource is what a connection's buffered reader reads from: the
// connection, or inside the poller loop the socket without waiting.
type connSource struct {
	nc     net.Conn
	lc     loopConn
	inLoop bool
	// drained: inside the loop, the last read returned less than it
	// asked for, so the socket was empty then, and no wait has happened
	// since: the loop may wait without looking again.
	drained bool
	// loopReads counts the reads inside the loop (a test's measure).
	loopReads int
}

func (s *connSource) Read(p []byte) (int, error) {
	if !s.inLoop {
		return s.nc.Read(p)
	}
	n, err := s.lc.readNow(p)
	s.loopReads++
	s.drained = err == nil && n < len(p)
	return n, err
}

// serveLoop serves messages inside one poller wait (loopConn) until the
// connection ends, reporting false, or the next message is larger than
// the read buffer, reporting true: the general path reads that one. A
// message that has begun must arrive within timeout, as there.
func (c *conn) serveLoop(log *slog.Logger, timeout time.Duration) bool {
	src := c.src
	src.drained = false // the wait's start forgot what the last one saw
	deadline := false   // a read deadline is set for the message begun
	var (
		goOn    = true
		readErr error
	)
	err := c.src.lc.runLoop(func() bool {
		src.inLoop = true
		defer func() { src.inLoop = false }()
		for {
			n, known := c.nextMessageLen()
			switch {
			case known && (n <= 0 || n > c.r.Size()):
				return true // too large (or malformed): the general path
			case known && c.r.Buffered() >= n:
				if deadline {
					_ = c.nc.SetReadDeadline(time.Time{})
					deadline = false
				}
				// Nothing reads the socket while the command runs: the
				// message is in the buffer, and the disconnect watcher
				// peeks through a handle of its own (watchConn).
				if !c.serveOne(log, timeout) {
					goOn = false
					return true
				}
				continue
			}
			if c.r.Buffered() > 0 && timeout > 0 && !deadline {
				_ = c.nc.SetReadDeadline(time.Now().Add(timeout))
				deadline = true
			}
			if src.drained {
				src.drained = false
				return false // wait: nothing arrived since the socket was empty
			}
			if _, err := c.r.Peek(c.r.Buffered() + 1); err != nil {
				if errors.Is(err, errWouldBlock) {
					return false
				}
				readErr, goOn = err, false
				return true
			}
		}
	})
	if err == nil {
		err = readErr
	}
	if deadline && goOn && err == nil {
		_ = c.nc.SetReadDeadline(time.Time{}) // the general path sets its own
	}
	if err != nil {
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
			log.Info("closing connection: a message did not arrive in time", mongolog.KeyID, mongolog.IDConnectionClosedEarly, "timeout", timeout)
		case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
			// "Connection ended" says it.
		default:
			log.Debug("connection closed by an error", "err", err)
		}
		return false
	}
	return goOn
}
