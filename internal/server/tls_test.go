package server

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, as PEM files in a temporary directory.
type testPKI struct {
	dir              string
	caFile           string
	serverFile       string // chain and key in one file
	clientCert       tls.Certificate
	pool             *x509.CertPool
	serverCertOnly   string
	serverKeyOnly    string
	serverCommonName string
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	p := &testPKI{dir: dir, pool: x509.NewCertPool(), serverCommonName: "lode-test-server"}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lode test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	p.pool.AddCert(ca)
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, ips []net.IP) (certPEM, keyPEM []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn, Organization: []string{"Lode"}},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: ips, DNSNames: []string{"localhost"},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
	}
	write := func(name string, parts ...[]byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, bytes.Join(parts, nil), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p.caFile = write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	sc, sk := issue(2, p.serverCommonName, x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)})
	p.serverFile = write("server.pem", sc, sk)
	p.serverCertOnly = write("server.crt", sc)
	p.serverKeyOnly = write("server.key", sk)
	cc, ck := issue(3, "lode-test-client", x509.ExtKeyUsageClientAuth, nil)
	if p.clientCert, err = tls.X509KeyPair(cc, ck); err != nil {
		t.Fatal(err)
	}
	return p
}

// tlsServer serves with TLS in mode, the PKI's server certificate and, if
// withCA, client certificates required.
func tlsServer(t *testing.T, p *testPKI, mode TLSMode, withCA bool, cfg Config) (*Server, string) {
	t.Helper()
	files := TLSFiles{CertFile: p.serverFile}
	if withCA {
		files.CAFile = p.caFile
	}
	tc, err := LoadTLSConfig(files)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TLSMode, cfg.TLS = mode, tc
	return listenServer(t, cfg)
}

// dialTLSPinger opens a TLS connection that trusts the PKI's CA and,
// with cert, presents the client certificate.
func dialTLSPinger(t *testing.T, p *testPKI, addr string, cert bool) (*pinger, error) {
	t.Helper()
	cfg := &tls.Config{RootCAs: p.pool, ServerName: "127.0.0.1"}
	if cert {
		cfg.Certificates = []tls.Certificate{p.clientCert}
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	nc, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { nc.Close() })
	return &pinger{nc: nc, r: bufio.NewReader(nc)}, nil
}

func TestParseTLSMode(t *testing.T) {
	for in, want := range map[string]TLSMode{
		"disabled": TLSDisabled, "allowTLS": TLSAllow, "allow": TLSAllow, "preferTLS": TLSPrefer,
		"prefer": TLSPrefer, "requireTLS": TLSRequire, "require": TLSRequire, "REQUIRETLS": TLSRequire,
	} {
		if got, err := ParseTLSMode(in); err != nil || got != want {
			t.Errorf("ParseTLSMode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseTLSMode("sslOnly"); err == nil {
		t.Error("ParseTLSMode(sslOnly) succeeded")
	}
	if TLSRequire.String() != "requireTLS" || TLSDisabled.String() != "disabled" {
		t.Errorf("mode names %q %q", TLSRequire, TLSDisabled)
	}
}

// TestClientHelloDetection: a real ClientHello is recognised; a MongoDB
// message whose length (790 = 0x316) makes it start like a TLS record is
// not.
func TestClientHelloDetection(t *testing.T) {
	client, server := net.Pipe()
	go func() {
		_ = tls.Client(client, &tls.Config{ServerName: "x"}).Handshake()
	}()
	hello := make([]byte, tlsSniffLen)
	if _, err := io.ReadFull(server, hello); err != nil {
		t.Fatal(err)
	}
	client.Close()
	server.Close()
	if !isClientHello(hello) {
		t.Fatalf("a ClientHello % x not recognised", hello)
	}
	msg := message790(1)
	if !maybeTLSRecord(msg) || isClientHello(msg) {
		t.Fatalf("a 790-byte OP_MSG (% x) taken for a ClientHello", msg[:tlsSniffLen])
	}
}

// message790 is a ping whose OP_MSG is 790 bytes long: its first bytes,
// 16 03 00 00, are those of a TLS handshake record.
func message790(id int32) []byte {
	pad := strings.Repeat("x", 0)
	for {
		cmd := bsoncore.NewDocumentBuilder().AppendInt32("ping", 1).AppendString("pad", pad).AppendString("$db", "admin").Build()
		m := wire.AppendMsg(nil, id, 0, 0, cmd)
		if len(m) == 790 {
			return m
		}
		pad += "x"
	}
}

func TestTLSRequire(t *testing.T) {
	p := newTestPKI(t)
	s, addr := tlsServer(t, p, TLSRequire, false, Config{})
	tp, err := dialTLSPinger(t, p, addr, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tp.ping(); err != nil {
		t.Fatalf("TLS ping: %v", err)
	}
	plain := dialPinger(t, addr)
	if _, err := plain.ping(); err == nil {
		t.Fatal("a plain connection was served under requireTLS")
	}
	if _, err := tp.ping(); err != nil {
		t.Fatalf("TLS ping after a plain client was refused: %v", err)
	}
	st := run(s, bsoncore.NewDocumentBuilder().AppendInt32("serverStatus", 1).AppendString("$db", "admin").Build())
	sec, ok := st.Lookup("security").DocumentOK()
	if !ok {
		t.Fatalf("serverStatus has no security section under requireTLS: %v", st)
	}
	if name := sec.Lookup("SSLServerSubjectName").StringValue(); !strings.Contains(name, "CN="+p.serverCommonName) {
		t.Errorf("SSLServerSubjectName %q", name)
	}
	if has := sec.Lookup("SSLServerHasCertificateAuthority").Boolean(); has {
		t.Error("SSLServerHasCertificateAuthority true without a CA file")
	}
	if exp := sec.Lookup("SSLServerCertificateExpirationDate").Time(); time.Until(exp) < 23*time.Hour || time.Until(exp) > 25*time.Hour {
		t.Errorf("SSLServerCertificateExpirationDate %v, want in about 24 h", exp)
	}
}

// TestTLSAllowBoth: under allowTLS and preferTLS one port serves TLS and
// plain clients, including a plain message that starts like a TLS record.
func TestTLSAllowBoth(t *testing.T) {
	p := newTestPKI(t)
	for _, mode := range []TLSMode{TLSAllow, TLSPrefer} {
		t.Run(mode.String(), func(t *testing.T) {
			_, addr := tlsServer(t, p, mode, false, Config{})
			tp, err := dialTLSPinger(t, p, addr, false)
			if err != nil {
				t.Fatal(err)
			}
			plain := dialPinger(t, addr)
			for i := 0; i < 3; i++ {
				if _, err := tp.ping(); err != nil {
					t.Fatalf("TLS ping: %v", err)
				}
				if _, err := plain.ping(); err != nil {
					t.Fatalf("plain ping: %v", err)
				}
			}
			odd := dialPinger(t, addr)
			_ = odd.nc.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := odd.nc.Write(message790(7)); err != nil {
				t.Fatal(err)
			}
			if _, err := wire.ReadMessage(odd.r); err != nil {
				t.Fatalf("a plain 790-byte first message: %v", err)
			}
		})
	}
}

// TestTLSDisabledClosesHandshake: a server without TLS closes a TLS
// client at once instead of waiting for the "message" its first bytes
// announce, and serves a 790-byte plain message. The clients offer TLS
// 1.2 only, as their ClientHello is then short: its first four bytes
// spell a length under the 48 MB message limit, which the message reader
// alone would wait for until the message timeout. (Go's TLS 1.3
// ClientHello, with its large key shares, spells one over the limit.)
func TestTLSDisabledClosesHandshake(t *testing.T) {
	p := newTestPKI(t)
	s, addr := listenServer(t, Config{MessageTimeout: 20 * time.Second})
	for i := 0; i < 3; i++ {
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
		tc := tls.Client(nc, &tls.Config{RootCAs: p.pool, ServerName: "127.0.0.1", MaxVersion: tls.VersionTLS12})
		start := time.Now()
		err = tc.Handshake()
		if err == nil {
			t.Fatal("TLS handshake succeeded on a server without TLS")
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server neither answered nor closed a TLS 1.2 ClientHello in %v", time.Since(start))
		}
	}
	odd := dialPinger(t, addr)
	_ = odd.nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := odd.nc.Write(message790(7)); err != nil {
		t.Fatal(err)
	}
	if _, err := wire.ReadMessage(odd.r); err != nil {
		t.Fatalf("a plain 790-byte first message: %v", err)
	}
	st := run(s, bsoncore.NewDocumentBuilder().AppendInt32("serverStatus", 1).AppendString("$db", "admin").Build())
	if _, ok := st.Lookup("security").DocumentOK(); ok {
		t.Error("serverStatus has a security section without TLS")
	}
}

// TestTLSClientCertificates: with a CA file a client needs a certificate
// it signed; without one its connection fails.
func TestTLSClientCertificates(t *testing.T) {
	p := newTestPKI(t)
	s, addr := tlsServer(t, p, TLSRequire, true, Config{})
	if tp, err := dialTLSPinger(t, p, addr, false); err == nil {
		// TLS 1.3 reports the server's refusal on the first read.
		if _, err := tp.ping(); err == nil {
			t.Fatal("a client without a certificate was served")
		}
	}
	tp, err := dialTLSPinger(t, p, addr, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tp.ping(); err != nil {
		t.Fatalf("ping with a client certificate: %v", err)
	}
	st := run(s, bsoncore.NewDocumentBuilder().AppendInt32("serverStatus", 1).AppendString("$db", "admin").Build())
	if !st.Lookup("security", "SSLServerHasCertificateAuthority").Boolean() {
		t.Error("SSLServerHasCertificateAuthority false with a CA file")
	}
}

// TestTLSSilentClientTimesOut: a client that connects and says nothing
// is closed after the handshake timeout, and while it waits other
// clients connect and are served (the handshake is not on the accept
// loop).
func TestTLSSilentClientTimesOut(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	const timeout = 400 * time.Millisecond
	_, addr := tlsServer(t, p, TLSRequire, false, Config{MessageTimeout: timeout})
	start := time.Now()
	var silent []net.Conn
	for i := 0; i < 5; i++ {
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		silent = append(silent, nc)
	}
	tp, err := dialTLSPinger(t, p, addr, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tp.ping(); err != nil {
		t.Fatalf("TLS ping while silent clients wait: %v", err)
	}
	if d := time.Since(start); d >= timeout {
		t.Fatalf("a TLS client took %v to be served while silent clients waited", d)
	}
	for i, nc := range silent {
		_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := io.ReadAll(nc)
		if err != nil {
			t.Fatalf("silent connection %d not closed by the server: %v", i, err)
		}
		if d := time.Since(start); d < timeout {
			t.Fatalf("silent connection %d closed after %v, before the %v timeout", i, d, timeout)
		}
	}
	if _, err := tp.ping(); err != nil {
		t.Fatalf("the TLS client after the silent ones were closed: %v", err)
	}
}

func TestLoadTLSConfigErrors(t *testing.T) {
	p := newTestPKI(t)
	if _, err := LoadTLSConfig(TLSFiles{CertFile: p.serverCertOnly}); err == nil {
		t.Error("a certificate file without a key loaded")
	}
	if cfg, err := LoadTLSConfig(TLSFiles{CertFile: p.serverCertOnly, KeyFile: p.serverKeyOnly}); err != nil {
		t.Errorf("certificate and key in separate files: %v", err)
	} else if cfg.MinVersion != tls.VersionTLS12 || cfg.ClientAuth != tls.NoClientCert {
		t.Errorf("config %+v", cfg)
	}
	if _, err := LoadTLSConfig(TLSFiles{CertFile: p.serverFile, CAFile: p.serverKeyOnly}); err == nil {
		t.Error("a CA file without certificates loaded")
	}
	cfg, err := LoadTLSConfig(TLSFiles{CertFile: p.serverFile, CAFile: p.caFile, AllowConnectionsWithoutCertificates: true})
	if err != nil || cfg.ClientAuth != tls.VerifyClientCertIfGiven {
		t.Errorf("allowConnectionsWithoutCertificates: %v, %v", cfg, err)
	}
	if _, err := LoadTLSConfig(TLSFiles{CertFile: filepath.Join(p.dir, "missing.pem")}); err == nil {
		t.Error("a missing certificate file loaded")
	}
}

// command sends cmd on p's connection and returns the reply.
func (p *pinger) command(t *testing.T, cmd bsoncore.Document) bsoncore.Document {
	t.Helper()
	p.id++
	_ = p.nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := p.nc.Write(wire.AppendMsg(nil, p.id, 0, 0, cmd)); err != nil {
		t.Fatal(err)
	}
	m, err := wire.ReadMessage(p.r)
	if err != nil {
		t.Fatal(err)
	}
	body, err := m.(*wire.Msg).Merged()
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestTLSLongCommand: a command that runs past the disconnect watcher's
// start (an awaitData getMore waiting 300 ms) leaves the TLS connection
// usable: the watcher's wake-up deadline does not break the TLS layer.
func TestTLSLongCommand(t *testing.T) {
	t.Parallel()
	p := newTestPKI(t)
	s, addr := tlsServer(t, p, TLSRequire, false, Config{})
	doc := func() *bsoncore.DocumentBuilder { return bsoncore.NewDocumentBuilder() }
	if r := run(s, doc().AppendString("create", "capped").AppendBoolean("capped", true).AppendInt64("size", 1<<20).AppendString("$db", "db").Build()); r.Lookup("ok").Double() != 1 {
		t.Fatal(r)
	}
	tp, err := dialTLSPinger(t, p, addr, false)
	if err != nil {
		t.Fatal(err)
	}
	ins := doc().AppendString("insert", "capped").AppendArray("documents", bsoncore.NewArrayBuilder().
		AppendDocument(doc().AppendInt32("_id", 1).Build()).Build()).AppendString("$db", "db").Build()
	if r := tp.command(t, ins); r.Lookup("n").Int32() != 1 {
		t.Fatal(r)
	}
	find := tp.command(t, doc().AppendString("find", "capped").AppendBoolean("tailable", true).AppendBoolean("awaitData", true).AppendString("$db", "db").Build())
	id := find.Lookup("cursor", "id").Int64()
	if id == 0 {
		t.Fatalf("no tailable cursor: %v", find)
	}
	for i := 0; i < 2; i++ {
		start := time.Now()
		gm := tp.command(t, doc().AppendInt64("getMore", id).AppendString("collection", "capped").AppendInt64("maxTimeMS", 300).AppendString("$db", "db").Build())
		if gm.Lookup("ok").Double() != 1 {
			t.Fatal(gm)
		}
		if d := time.Since(start); d < 250*time.Millisecond {
			t.Fatalf("getMore returned after %v; it did not wait", d)
		}
		if _, err := tp.ping(); err != nil {
			t.Fatalf("ping after a long command over TLS: %v", err)
		}
	}
}

// TestLoadTLSConfigExpired: a certificate past its NotAfter is refused,
// as mongod refuses it at startup.
func TestLoadTLSConfigExpired(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(9), Subject: pkix.Name{CommonName: "expired"},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "expired.pem")
	data := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTLSConfig(TLSFiles{CertFile: path}); err == nil || !strings.Contains(err.Error(), "expired or not yet valid") {
		t.Fatalf("an expired certificate: %v", err)
	}
}
