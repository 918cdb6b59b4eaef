package clients

import (
	"context"
	"os/exec"
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

// uriVariantCases are the batch cases that run script against one
// server once per URI variant, one after another, each a subtest named
// after the script and its variant. The batch runner's connect(uri)
// (mongosh) and sys.argv (Python) hand the script the URI as
// `mongosh uri script` and `python3 script uri` do.
func uriVariantCases(t *testing.T, script, ok string) []scriptCase {
	t.Helper()
	s := startServer(t)
	cases := make([]scriptCase, len(uriVariants))
	for i, v := range uriVariants {
		cases[i] = scriptCase{script: script, ok: ok, name: script + " " + v.name, uri: s.uri() + v.query}
	}
	return cases
}

// TestTxnNode runs withTransaction and a write conflict through the Node
// driver installed in test/clients/node.
func TestTxnNode(t *testing.T) {
	t.Parallel()
	node := requireNodeDriver(t)
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
