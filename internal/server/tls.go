package server

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"
)

// TLSMode is mongod's net.tls.mode: which connections a server accepts
// in the clear and which over TLS.
type TLSMode int

// The TLS modes. A standalone server has no outgoing connections, so
// TLSAllow and TLSPrefer (which differ only in what mongod uses towards
// other members) accept the same: TLS and plain connections on one port.
const (
	// TLSDisabled serves plain connections only; a TLS handshake is
	// closed at once.
	TLSDisabled TLSMode = iota
	// TLSAllow accepts TLS and plain connections.
	TLSAllow
	// TLSPrefer accepts TLS and plain connections.
	TLSPrefer
	// TLSRequire accepts TLS connections only; a plain one is closed.
	TLSRequire
)

// String is the mode's name as mongod spells it.
func (m TLSMode) String() string {
	switch m {
	case TLSDisabled:
		return "disabled"
	case TLSAllow:
		return "allowTLS"
	case TLSPrefer:
		return "preferTLS"
	case TLSRequire:
		return "requireTLS"
	}
	return fmt.Sprintf("TLSMode(%d)", int(m))
}

// ParseTLSMode reads a mode as mongod's net.tls.mode spells it
// (disabled, allowTLS, preferTLS, requireTLS) or in the short forms
// allow, prefer and require; case does not matter.
func ParseTLSMode(s string) (TLSMode, error) {
	switch strings.ToLower(s) {
	case "disabled":
		return TLSDisabled, nil
	case "allowtls", "allow":
		return TLSAllow, nil
	case "prefertls", "prefer":
		return TLSPrefer, nil
	case "requiretls", "require":
		return TLSRequire, nil
	}
	return TLSDisabled, fmt.Errorf("unknown TLS mode %q: want disabled, allowTLS, preferTLS or requireTLS", s)
}

// tlsSniffLen is how many bytes tell a TLS ClientHello from a MongoDB
// message: the TLS record header (content type, version, length), the
// handshake header (type, length) and the ClientHello's legacy version.
const tlsSniffLen = 11

// maybeTLSRecord reports whether b, the first three bytes of a
// connection, can begin a TLS handshake record: content type 22 and
// protocol version 3.0 to 3.4. A MongoDB message starts with its length,
// and a few lengths (790 bytes, for one) start the same way.
func maybeTLSRecord(b []byte) bool {
	return b[0] == 0x16 && b[1] == 0x03 && b[2] <= 0x04
}

// isClientHello reports whether b, the first tlsSniffLen bytes of a
// connection, are the start of a TLS ClientHello: a handshake record
// whose message type is client_hello (1) and whose legacy version's
// major byte is 3. The byte that holds that major version is the second
// byte of a MongoDB request's responseTo, which a client sends as 0, so
// no MongoDB request passes.
func isClientHello(b []byte) bool {
	return maybeTLSRecord(b) && b[5] == 0x01 && b[9] == 0x03
}

// handshakeTimeout bounds the TLS negotiation of a new connection: its
// first bytes and the handshake. It is the message timeout, or its
// default when that is off, so a client that connects and never speaks
// cannot hold a connection slot for ever.
func (s *Server) handshakeTimeout() time.Duration {
	if t := s.messageTimeout(); t > 0 {
		return t
	}
	return DefaultMessageTimeout
}

// negotiate runs on a connection's goroutine before its first message.
// It reads the first bytes, tells a TLS ClientHello from a MongoDB
// message, and as the server's TLS mode says does the TLS handshake (then
// c.nc and c.r read and write through TLS), serves the connection in the
// clear, or refuses it. It reports whether the connection goes on; a
// read error is left for the message loop to report.
//
// A plain connection keeps the reader that sniffed it, so its messages
// take the same path as on a server without TLS.
func (c *conn) negotiate(log *slog.Logger) bool {
	s := c.s
	if s.cfg.TLSMode == TLSDisabled {
		return c.refuseTLS(log)
	}
	timeout := s.handshakeTimeout()
	_ = c.raw.SetDeadline(time.Now().Add(timeout))
	hello, err := c.sniff()
	if err != nil {
		_ = c.raw.SetDeadline(time.Time{})
		logSniffError(log, err, timeout)
		return false
	}
	if !hello {
		_ = c.raw.SetDeadline(time.Time{})
		if s.cfg.TLSMode == TLSRequire {
			log.Info("closing connection: the server accepts TLS connections only (--tls-mode requireTLS)")
			return false
		}
		return true
	}
	tc := tls.Server(&sniffedConn{Conn: c.raw, r: c.r}, s.cfg.TLS)
	err = tc.Handshake()
	_ = c.raw.SetDeadline(time.Time{})
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			log.Info("closing connection: the TLS handshake did not finish in time", "timeout", timeout)
		} else {
			log.Info("closing connection: TLS handshake failed", "err", err)
		}
		return false
	}
	st := tc.ConnectionState()
	log.Debug("TLS connection", "version", tls.VersionName(st.Version), "cipher", tls.CipherSuiteName(st.CipherSuite),
		"client_certificate", len(st.PeerCertificates) > 0)
	c.nc = tc
	c.r = bufio.NewReaderSize(tc, readBufferSize)
	c.src.lc = nil // reads go through TLS
	return true
}

// refuseTLS is negotiate on a server without TLS: a connection that opens
// with a TLS ClientHello is closed at once, as mongod does, rather than
// left waiting for a "message" of the length its first bytes spell. The
// first byte may take as long as an idle client likes; the few more the
// check needs take no longer than the message timeout, as the rest of a
// message does.
func (c *conn) refuseTLS(log *slog.Logger) bool {
	if _, err := c.r.Peek(1); err != nil {
		return true // the loop reports the closed connection
	}
	timeout := c.s.messageTimeout()
	deadline := false
	peek := func(n int) ([]byte, error) {
		if c.r.Buffered() < n && timeout > 0 && !deadline {
			deadline = true
			_ = c.raw.SetReadDeadline(time.Now().Add(timeout))
		}
		return c.r.Peek(n)
	}
	b, err := peek(3)
	if err == nil && maybeTLSRecord(b) {
		b, err = peek(tlsSniffLen) // a MongoDB message has 16 bytes or more
	}
	if deadline {
		_ = c.raw.SetReadDeadline(time.Time{})
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			log.Info("closing connection: a message did not arrive in time", "timeout", timeout)
			return false
		}
		return true // short and closed: the loop reports it
	}
	if len(b) >= tlsSniffLen && isClientHello(b) {
		log.Info("closing connection: a TLS handshake was received but TLS is disabled (--tls-mode)")
		return false
	}
	return true
}

// sniff reads the connection's first bytes and reports whether they open
// a TLS ClientHello.
func (c *conn) sniff() (bool, error) {
	b, err := c.r.Peek(3)
	if err != nil {
		return false, err
	}
	if !maybeTLSRecord(b) {
		return false, nil
	}
	if b, err = c.r.Peek(tlsSniffLen); err != nil {
		return false, err
	}
	return isClientHello(b), nil
}

// logSniffError logs why a connection ended before its first bytes
// could be read.
func logSniffError(log *slog.Logger, err error, timeout time.Duration) {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		log.Info("closing connection: no request or TLS handshake arrived in time", "timeout", timeout)
	case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed):
		// "Connection ended" says it.
	default:
		log.Debug("connection closed by an error", "err", err)
	}
}

// sniffedConn is the accepted connection as the TLS layer reads it: the
// bytes the sniff buffered first, then the socket.
type sniffedConn struct {
	net.Conn
	r *bufio.Reader // nil once drained
}

func (sc *sniffedConn) Read(p []byte) (int, error) {
	if sc.r != nil {
		if sc.r.Buffered() > 0 {
			return sc.r.Read(p)
		}
		sc.r = nil
	}
	return sc.Conn.Read(p)
}
