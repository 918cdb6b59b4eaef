package clients

import (
	"strings"
	"testing"
)

// TestExplainSeed004Mongosh checks that mongosh's ensureIndex and
// .explain() / .explain("executionStats") work and show the seed's plans.
func TestExplainSeed004Mongosh(t *testing.T) {
	s := startServer(t)
	out := runMongosh(t, s, "explain_seed004.js")
	if !strings.Contains(out, "explain seed004 OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}
