package server

import (
	"context"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
)

// PipeListener is a net.Listener whose connections are in-memory pipes
// made by its DialContext, for a driver in the same process
// (lode.InProcess): nothing listens on the network. Its DialContext has
// the signature of the Go driver's options.ContextDialer.
type PipeListener struct {
	addr   pipeAddr
	conns  chan net.Conn
	done   chan struct{}
	once   sync.Once
	nextID atomic.Int64
}

// NewPipeListener returns a listener whose address, as hello and
// currentOp report it, is host (for example "in-process:27017").
func NewPipeListener(host string) *PipeListener {
	return &PipeListener{addr: pipeAddr(host), conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next DialContext.
func (l *PipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and DialContext; connections already made stay open
// until their ends are closed.
func (l *PipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the listener's in-process address.
func (l *PipeListener) Addr() net.Addr { return l.addr }

// DialContext makes a connection to the listener's server. network and
// address are ignored: there is one server.
func (l *PipeListener) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	remote := pipeAddr("in-process-client:" + strconv.FormatInt(l.nextID.Add(1), 10))
	sc := &pipeConn{Conn: server, local: l.addr, remote: remote}
	cc := &pipeConn{Conn: client, local: remote, remote: l.addr}
	select {
	case l.conns <- sc:
		return cc, nil
	case <-l.done:
		client.Close()
		server.Close()
		return nil, net.ErrClosed
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
}

// pipeConn is one end of an in-process connection with the addresses
// the server shows (net.Pipe's own are both "pipe").
type pipeConn struct {
	net.Conn
	local, remote net.Addr
}

func (c *pipeConn) LocalAddr() net.Addr  { return c.local }
func (c *pipeConn) RemoteAddr() net.Addr { return c.remote }

// pipeAddr is a host:port-shaped in-process address.
type pipeAddr string

func (a pipeAddr) Network() string { return "inprocess" }
func (a pipeAddr) String() string  { return string(a) }
