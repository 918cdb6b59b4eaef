package clients

import (
	"strings"
	"testing"
)

// TestCollationPymongo: collations through pymongo 3.11
// (collation_pymongo.py).
func TestCollationPymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runPython(t, s, "collation_pymongo.py")
	if !strings.Contains(out, "collation ok") {
		t.Fatalf("collation_pymongo.py did not finish:\n%s", out)
	}
}
