package clients

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// uriVariants are the connection strings every client must work with:
// discovery through the replica-set identity, a named set, and a direct
// connection.
var uriVariants = []struct{ name, query string }{
	{"plain", ""},
	{"replicaSet", "?replicaSet=lode"},
	{"direct", "?directConnection=true"},
}

// TestTxnMongosh runs session.startTransaction()/commitTransaction() in
// mongosh, once per URI variant, all in one mongosh process (the batch
// runner's connect(uri) opens the driver connection `mongosh uri` does).
func TestTxnMongosh(t *testing.T) {
	t.Parallel()
	runMongoshBatch(t, uriVariantCases(t, "txn_mongosh.js", "txn mongosh OK"))
}

// TestTxnPymongo runs a transaction and with_transaction in pymongo 3.11,
// once per URI variant, all in one Python process.
func TestTxnPymongo(t *testing.T) {
	t.Parallel()
	runPythonBatch(t, uriVariantCases(t, "txn_pymongo.py", "txn pymongo OK"))
}

// uriVariantCases are the batch cases that run script against one
// server once per URI variant, one after another, each a subtest named
// after its variant.
func uriVariantCases(t *testing.T, script, ok string) []scriptCase {
	t.Helper()
	s := startServer(t)
	cases := make([]scriptCase, len(uriVariants))
	for i, v := range uriVariants {
		cases[i] = scriptCase{script: script, ok: ok, name: v.name, uri: s.uri() + v.query}
	}
	return cases
}

// TestTxnNode runs withTransaction and a write conflict through the Node
// driver installed in test/clients/node.
func TestTxnNode(t *testing.T) {
	t.Parallel()
	node := requireTool(t, "node")
	if _, err := os.Stat(filepath.Join("node", "node_modules", "mongodb")); err != nil {
		if os.Getenv("LODE_REQUIRE_CLIENTS") == "1" {
			t.Fatalf("the Node driver is required: run npm ci in test/clients/node (%v)", err)
		}
		t.Skip("Node driver not installed (npm ci in test/clients/node)")
	}
	s := startServer(t)
	for _, v := range uriVariants {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, node, "node_txn.js", s.uri()+v.query).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "node txn OK") {
				t.Fatalf("node: %v\n%s", err, out)
			}
		})
	}
}

// runPythonURI runs a script with /usr/bin/python3 (pymongo 3.11) against uri.
func runPythonURI(t *testing.T, uri, script string) string {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import pymongo").Run(); err != nil {
		if os.Getenv("LODE_REQUIRE_CLIENTS") == "1" {
			t.Fatalf("pymongo is required: %v", err)
		}
		t.Skip("pymongo not installed for /usr/bin/python3")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/python3", script, uri).CombinedOutput()
	if err != nil {
		t.Fatalf("python %s: %v\n%s", script, err, out)
	}
	return string(out)
}

// TestTxnCommitTimeoutPymongo runs transactions whose commit asks for j:true
// with maxTimeMS 1 against a server whose background sync is off, so the
// journal wait can outlive maxTimeMS after the data is committed. pymongo
// must see UnknownTransactionCommitResult, retry only the commit, and every
// transaction must be applied exactly once.
func TestTxnCommitTimeoutPymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--sync-interval", "1h")
	out := runPythonURI(t, s.uri(), "txn_commit_timeout.py")
	if !strings.Contains(out, "txn commit timeout OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
	t.Log(strings.TrimSpace(out))
}
