package clients

import (
	"strings"
	"testing"
)

// TestExplainSeed004Mongosh checks that mongosh's ensureIndex and
// .explain() / .explain("executionStats") work and show the seed's plans.
func TestExplainSeed004Mongosh(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "explain_seed004.js")
	if !strings.Contains(out, "explain seed004 OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}

// TestExplainAggregateMongosh checks db.c.explain(verbosity).aggregate()
// on seed 003's pipeline: executionStats of the $cursor stage and the
// figures of the stages after it.
func TestExplainAggregateMongosh(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "explain_aggregate.js")
	if !strings.Contains(out, "explain aggregate OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}
