package clients

import (
	"strings"
	"testing"
)

// TestSeed003HitsPerDay runs seed 003's aggregation through pymongo 3.11
// and mongosh on a hand-computed data set.
func TestSeed003HitsPerDay(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	if out := runPython(t, s, "seed003_hits.py"); !strings.Contains(out, "seed003 hits OK") {
		t.Fatalf("python:\n%s", out)
	}
	if out := runMongosh(t, s, "seed003_hits.js"); !strings.Contains(out, "seed003 hits (mongosh) OK") {
		t.Fatalf("mongosh:\n%s", out)
	}
}
