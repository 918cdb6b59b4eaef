package security

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// roundTrip inserts a document through client and reads it back.
func roundTrip(client *mongo.Client, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	coll := client.Database("security").Collection(name)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: name}, {Key: "v", Value: 42}}); err != nil {
		return err
	}
	var got struct {
		V int `bson:"v"`
	}
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: name}}).Decode(&got); err != nil {
		return err
	}
	if got.V != 42 {
		return errors.New("read back a different document")
	}
	return nil
}

// ping runs {ping: 1} through client.
func ping(client *mongo.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
}

// refused is why a client from connectRefused was not served, or "" if
// it was: ping's error must carry the connection's own failure (the
// topology's "Last error"), so the short selection timeout cannot pass
// for a refusal when the server merely hangs.
func refused(t *testing.T, client *mongo.Client) string {
	t.Helper()
	err := ping(client)
	if err == nil {
		return ""
	}
	if !strings.Contains(err.Error(), "Last error:") {
		t.Errorf("the client timed out without the connection failing: %v", err)
	}
	return err.Error()
}

// TestGoDriverRequireTLS: under requireTLS the Go driver connects with
// tls=true and tlsCAFile, writes and reads; a plain client cannot
// connect, and TLS clients are served after it tried.
func TestGoDriverRequireTLS(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	s := startServer(t, "--tls-mode", "requireTLS", "--tls-cert-file", p.server)
	client := connect(t, s, p.tlsURI())
	if err := roundTrip(client, "require"); err != nil {
		t.Fatalf("TLS client: %v", err)
	}
	plain := connectRefused(t, s, nil)
	if refused(t, plain) == "" {
		t.Fatal("a plain client was served under requireTLS")
	}
	if err := roundTrip(client, "after-plain"); err != nil {
		t.Fatalf("TLS client after a plain one was refused: %v", err)
	}
	again := connect(t, s, p.tlsURI())
	if err := ping(again); err != nil {
		t.Fatalf("a new TLS client after a plain one was refused: %v", err)
	}
	// serverStatus reports the certificate, as mongod's security section.
	var st struct {
		Security struct {
			Subject string    `bson:"SSLServerSubjectName"`
			HasCA   bool      `bson:"SSLServerHasCertificateAuthority"`
			Expires time.Time `bson:"SSLServerCertificateExpirationDate"`
		} `bson:"security"`
	}
	if err := client.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Security.Subject, "CN=localhost") || st.Security.HasCA || time.Until(st.Security.Expires) < 20*time.Hour {
		t.Errorf("serverStatus.security %+v", st.Security)
	}
	// getCmdLineOpts still shows the command line.
	var opts struct {
		Argv []string `bson:"argv"`
	}
	if err := client.Database("admin").RunCommand(context.Background(), bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(opts.Argv, " "), "--tls-mode requireTLS") {
		t.Errorf("getCmdLineOpts argv %q", opts.Argv)
	}
}

// TestGoDriverAllowAndPrefer: allowTLS and preferTLS (and their short
// forms) serve a TLS client and a plain client on one port.
func TestGoDriverAllowAndPrefer(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	for _, mode := range []string{"allowTLS", "prefer"} {
		t.Run(mode, func(t *testing.T) {
			s := startServer(t, "--tls-mode", mode, "--tls-cert-file", p.server)
			if err := roundTrip(connect(t, s, p.tlsURI()), "tls"); err != nil {
				t.Fatalf("TLS client: %v", err)
			}
			if err := roundTrip(connect(t, s, nil), "plain"); err != nil {
				t.Fatalf("plain client: %v", err)
			}
		})
	}
}

// TestDisabledRefusesTLS: a server started without TLS (the default)
// serves plain clients; a TLS client fails fast instead of hanging until
// the message timeout.
func TestDisabledRefusesTLS(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	s := startServer(t)
	if err := ping(connect(t, s, nil)); err != nil {
		t.Fatalf("plain client: %v", err)
	}
	start := time.Now()
	if refused(t, connectRefused(t, s, p.tlsURI())) == "" {
		t.Fatal("a TLS client was served with TLS disabled")
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the TLS client took %v to fail", d)
	}
}

// TestClientCertificates: with --tls-ca-file a client must present a
// certificate signed by the CA; --tls-allow-connections-without-certificates
// lets one without a certificate in.
func TestClientCertificates(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	withCert := p.tlsURI()
	withCert.Set("tlsCertificateKeyFile", p.client)

	s := startServer(t, "--tls-mode", "requireTLS", "--tls-cert-file", p.server, "--tls-ca-file", p.ca)
	if refused(t, connectRefused(t, s, p.tlsURI())) == "" {
		t.Fatal("a client without a certificate was served with --tls-ca-file")
	}
	if err := roundTrip(connect(t, s, withCert), "client-cert"); err != nil {
		t.Fatalf("client with a certificate: %v", err)
	}

	s2 := startServer(t, "--tls-mode", "require", "--tls-cert-file", p.server, "--tls-ca-file", p.ca,
		"--tls-allow-connections-without-certificates")
	if err := ping(connect(t, s2, p.tlsURI())); err != nil {
		t.Fatalf("client without a certificate, allowed: %v", err)
	}
	if err := ping(connect(t, s2, withCert)); err != nil {
		t.Fatalf("client with a certificate, certificates optional: %v", err)
	}
}

// TestMongoshTLS: mongosh --tls --tlsCAFile writes and reads.
func TestMongoshTLS(t *testing.T) {
	t.Parallel()
	mongosh := requireTool(t, "mongosh")
	p := newPKI(t)
	s := startServer(t, "--tls-mode", "requireTLS", "--tls-cert-file", p.server)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := `const c = db.getSiblingDB("security").shell;
c.insertOne({_id: 1, via: "mongosh"});
const d = c.findOne({_id: 1});
print("READ " + d.via);`
	cmd := exec.CommandContext(ctx, mongosh, "--quiet", "--norc", "--tls", "--tlsCAFile", p.ca,
		"mongodb://127.0.0.1:"+port(s)+"/?directConnection=true", "--eval", script)
	cmd.Env = append(os.Environ(), "MONGOSH_SKIP_NODE_VERSION_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mongosh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "READ mongosh") {
		t.Fatalf("mongosh output:\n%s", out)
	}
}

// TestPymongoTLS: pymongo 3.11's MongoClient(tls=True, tlsCAFile=...)
// writes and reads, and with --tls-ca-file presents
// tlsCertificateKeyFile. One Python process (pymongo holds a process
// about half a second at exit) connects to both servers.
func TestPymongoTLS(t *testing.T) {
	t.Parallel()
	py := requirePymongo(t)
	p := newPKI(t)
	const script = `import json, sys, pymongo
for name, uri, ca, cert in json.loads(sys.argv[1]):
    kw = dict(tls=True, tlsCAFile=ca, serverSelectionTimeoutMS=5000)
    if cert:
        kw["tlsCertificateKeyFile"] = cert
    c = pymongo.MongoClient(uri, **kw)
    coll = c.security.py
    coll.insert_one({"_id": 1, "via": "pymongo"})
    print(name, "READ", coll.find_one({"_id": 1})["via"])
    c.close()
`
	uri := func(s *server) string { return "mongodb://127.0.0.1:" + port(s) + "/?directConnection=true" }
	servers := [][4]string{
		{"server-certificate", uri(startServer(t, "--tls-mode", "requireTLS", "--tls-cert-file", p.server)), p.ca, ""},
		{"client-certificate", uri(startServer(t, "--tls-mode", "requireTLS", "--tls-cert-file", p.server, "--tls-ca-file", p.ca)), p.ca, p.client},
	}
	list, err := json.Marshal(servers)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-c", script, string(list)).CombinedOutput()
	if err != nil {
		t.Fatalf("pymongo: %v\n%s", err, out)
	}
	for _, s := range servers {
		if !strings.Contains(string(out), s[0]+" READ pymongo") {
			t.Errorf("pymongo with %s: no %q in output:\n%s", s[0], s[0]+" READ pymongo", out)
		}
	}
}

// port is the server's port.
func port(s *server) string { return s.addr[strings.LastIndexByte(s.addr, ':')+1:] }

// TestStartupErrors: bad TLS flag combinations stop `lode serve` with a
// non-zero exit and a message naming the flag; a certificate with TLS
// disabled only warns.
func TestStartupErrors(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-mode", "requireTLS"}, "--tls-cert-file"},
		{[]string{"--tls-mode", "preferTLS"}, "--tls-cert-file"},
		{[]string{"--tls-mode", "sslOnly", "--tls-cert-file", p.server}, "--tls-mode"},
		{[]string{"--tls-mode", "requireTLS", "--tls-cert-file", p.ca}, "--tls-cert-file"},
		{[]string{"--tls-key-file", p.server}, "--tls-key-file needs --tls-cert-file"},
		{[]string{"--tls-mode", "requireTLS", "--tls-cert-file", p.server, "--tls-ca-file", p.server + ".missing"}, "CA file"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--dir", t.TempDir()}, tc.args...)
		out, err := exec.CommandContext(ctx, lodeBin, args...).CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Errorf("lode serve %v: %v, want a non-zero exit; output:\n%s", tc.args, err, out)
			continue
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("lode serve %v: output does not name %q:\n%s", tc.args, tc.want, out)
		}
	}
	s := startServer(t, "--tls-cert-file", p.server)
	if err := ping(connect(t, s, nil)); err != nil {
		t.Fatalf("plain client with a certificate and TLS disabled: %v", err)
	}
	if !strings.Contains(s.log(), "TLS files given but --tls-mode is disabled") {
		t.Errorf("no warning for a certificate with TLS disabled; logs:\n%s", s.log())
	}
}
