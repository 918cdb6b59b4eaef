package clients

import (
	"strings"
	"testing"
)

// TestExprsMongosh: $median, $percentile, trigonometry, bitwise and the
// JavaScript refusal through mongosh (exprs_mongosh.js).
func TestExprsMongosh(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "exprs_mongosh.js")
	if !strings.Contains(out, "exprs OK") {
		t.Fatalf("exprs_mongosh.js did not finish:\n%s", out)
	}
}
