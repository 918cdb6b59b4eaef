package clients

import (
	"strings"
	"testing"
)

// TestStages19Pymongo: $redact, $graphLookup and $densify through pymongo
// 3.11 (stages19_pymongo.py).
func TestStages19Pymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runPython(t, s, "stages19_pymongo.py")
	if !strings.Contains(out, "stages19 ok") {
		t.Fatalf("stages19_pymongo.py did not finish:\n%s", out)
	}
}

// TestStages19Mongosh: $graphLookup and $densify through mongosh
// (stages19_mongosh.js).
func TestStages19Mongosh(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "stages19_mongosh.js")
	if !strings.Contains(out, "stages19 mongosh OK") {
		t.Fatalf("stages19_mongosh.js did not finish:\n%s", out)
	}
}
