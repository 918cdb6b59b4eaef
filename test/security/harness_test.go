// Package security tests `lode serve`'s TLS through real clients (the Go
// driver, mongosh, pymongo) against a child process, with a CA, server
// and client certificates made for each test.
package security

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

var lodeBin string

// TestMain finds the lode binary every test here starts (the one the
// other packages share, testenv.LodeBinary).
func TestMain(m *testing.M) {
	bin, err := testenv.LodeBinary()
	if err != nil {
		fmt.Fprintln(os.Stderr, "building lode:", err)
		os.Exit(1)
	}
	lodeBin = bin
	os.Exit(m.Run())
}

// requireClients reports whether a missing client fails a test instead
// of skipping it (LODE_REQUIRE_CLIENTS=1, as in CI).
func requireClients() bool { return testenv.RequireClients() }

// requireTool returns the path of an external client, skipping the test
// when it is missing unless clients are required.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	return testenv.RequireTool(t, name)
}

// requirePymongo returns Debian's /usr/bin/python3 when it imports
// pymongo, and skips (or fails, when clients are required) otherwise.
func requirePymongo(t *testing.T) string {
	t.Helper()
	return testenv.RequirePymongo(t)
}

// server is a `lode serve` child process.
type server struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	logs strings.Builder
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

var startedRe = regexp.MustCompile(`lode started"? addr=(\S+)`)

// startServer runs `lode serve` on a free loopback port (the kernel picks
// it) with a temporary data directory and the extra flags, waits until it
// listens, and stops it by its PID when the test ends.
func startServer(t testing.TB, extra ...string) *server {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--dir", t.TempDir()}, extra...)
	cmd := exec.Command(lodeBin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.logs.WriteString(line + "\n")
			s.mu.Unlock()
			if m := startedRe.FindStringSubmatch(line); m != nil && !sent {
				addrc <- m[1]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		close(addrc)
	}()
	var ok bool
	select {
	case s.addr, ok = <-addrc:
	case <-time.After(30 * time.Second):
	}
	if !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("lode serve %v did not start; logs:\n%s", extra, s.log())
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("lode serve logs:\n%s", s.log())
		}
	})
	return s
}

// uri is the server's connection string with the given options.
func (s *server) uri(opts url.Values) string {
	q := url.Values{"directConnection": {"true"}}
	for k, v := range opts {
		q[k] = v
	}
	return "mongodb://" + s.addr + "/?" + q.Encode()
}

// connect opens a Go driver client with the URI options and a short
// server selection timeout, so a refused connection fails fast.
func connect(t testing.TB, s *server, opts url.Values) *mongo.Client {
	t.Helper()
	return connectTimeout(t, s, opts, 2*time.Second)
}

// connectRefused is connect for a client the test expects the server to
// refuse (a failed TLS handshake): the driver's monitor sees the
// refusal on its first connection, at once, and the operation then only
// waits out serverSelectionTimeoutMS, so a short one keeps the test from
// sleeping 2 s. The test still requires the operation to fail, with the
// connection's own error (refused).
func connectRefused(t testing.TB, s *server, opts url.Values) *mongo.Client {
	t.Helper()
	return connectTimeout(t, s, opts, 500*time.Millisecond)
}

func connectTimeout(t testing.TB, s *server, opts url.Values, timeout time.Duration) *mongo.Client {
	t.Helper()
	if opts == nil {
		opts = url.Values{}
	}
	opts.Set("serverSelectionTimeoutMS", fmt.Sprint(timeout.Milliseconds()))
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri(opts)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}

// pki is a CA, a server certificate for 127.0.0.1 and localhost and a
// client certificate, as PEM files.
type pki struct {
	ca     string // the CA certificate
	server string // server chain and key in one file
	client string // client certificate and key in one file
}

// newPKI makes the certificates (ECDSA P-256, valid for a day) in a
// temporary directory.
func newPKI(t testing.TB) *pki {
	t.Helper()
	dir := t.TempDir()
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Lode test CA", Organization: []string{"Lode"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(serial int64, cn string, usage x509.ExtKeyUsage, server bool) []byte {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn, Organization: []string{"Lode"}},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		}
		if server {
			tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
			tmpl.DNSNames = []string{"localhost"}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Join([][]byte{
			pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
			pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}),
		}, nil)
	}
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return &pki{
		ca:     write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})),
		server: write("server.pem", issue(2, "localhost", x509.ExtKeyUsageServerAuth, true)),
		client: write("client.pem", issue(3, "lode-test-client", x509.ExtKeyUsageClientAuth, false)),
	}
}

// tlsURI are the URI options of a TLS client that trusts the CA.
func (p *pki) tlsURI() url.Values {
	return url.Values{"tls": {"true"}, "tlsCAFile": {p.ca}}
}
