package server

import (
	"log/slog"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/wire"
)

// memConn is a net.Conn that serves the same message over and over and
// drops what is written: the server's own cost per message, without the
// kernel's.
type memConn struct {
	net.Conn
	msg     []byte
	off     int
	written int
}

func (m *memConn) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], m.msg[m.off:])
		n += c
		m.off = (m.off + c) % len(m.msg)
	}
	return n, nil
}

func (m *memConn) Write(p []byte) (int, error)        { m.written += len(p); return len(p), nil }
func (m *memConn) SetReadDeadline(time.Time) error    { return nil }
func (m *memConn) RemoteAddr() net.Addr               { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }
func (m *memConn) Close() error                       { return nil }
func (m *memConn) SetWriteDeadline(t time.Time) error { return nil }

// BenchmarkServeOne is the server's user-space cost of one message, from
// the read buffer to the reply's bytes: framing, validation, dispatch,
// the session and cluster-time handling and the reply. The kernel's
// share (the socket's read and write, the wake-ups) is what
// BenchmarkPingRoundTrip adds.
func BenchmarkServeOne(b *testing.B) {
	s, _ := newBenchServer(b)
	for _, c := range []struct {
		name string
		cmd  bsoncore.Document
	}{
		{"bare", bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("$db", "admin").Build()},
		{"driver", driverPing()},
	} {
		b.Run(c.name, func(b *testing.B) {
			mc := &memConn{msg: wire.AppendMsg(nil, 1, 0, 0, c.cmd)}
			benchServeOne(b, s, mc, func() bool { return mc.written > 0 })
		})
	}
}

// newBenchServer is a Server on a fresh engine, closed with the benchmark.
func newBenchServer(b *testing.B) (*Server, *engine.Engine) {
	eng, err := engine.Open(b.TempDir(), engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	s := New(eng, Config{Logger: slog.New(slog.DiscardHandler)})
	b.Cleanup(func() { s.Close(); eng.Close() })
	return s, eng
}

// benchServeOne serves the messages c reads, one serveOne per benchmark
// iteration, after a first one that must have replied.
func benchServeOne(b *testing.B, s *Server, c net.Conn, replied func() bool) {
	conn, log := benchConn(b, s, c, replied)
	b.ReportAllocs()
	for b.Loop() {
		conn.serveOne(log, 0)
	}
}

// benchConn is s's connection over c, listed for the benchmark's length,
// after a first serveOne that must have replied.
func benchConn(b *testing.B, s *Server, c net.Conn, replied func() bool) (*conn, *slog.Logger) {
	conn := s.newConn(c)
	s.ops().listConn(conn)
	b.Cleanup(func() { s.ops().forgetConn(conn) })
	log := slog.New(slog.DiscardHandler)
	if !conn.serveOne(log, 0) || !replied() {
		b.Fatal("no reply")
	}
	return conn, log
}
