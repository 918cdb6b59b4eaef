package clients

import (
	"strings"
	"testing"
)

// TestSeed001Bucket runs seed 001's shell code in mongosh.
func TestSeed001Bucket(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "seed001_bucket.js")
	if !strings.Contains(out, "seed001 OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}

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
