package clients

import (
	"strings"
	"testing"
)

// TestSeed003OrdersPython runs seed 003's order update and conditional
// debit through pymongo 3.11.
func TestSeed003OrdersPython(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runPython(t, s, "seed003_orders.py")
	if !strings.Contains(out, "seed003 orders OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}
