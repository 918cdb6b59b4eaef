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
