package clients

import (
	"strings"
	"testing"
)

// TestGeo2DOptionsPymongo: a 2d index with bits, min and max through
// pymongo 3.11 (geo2d_options_pymongo.py).
func TestGeo2DOptionsPymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runPython(t, s, "geo2d_options_pymongo.py")
	if !strings.Contains(out, "geo2d options ok") {
		t.Fatalf("geo2d_options_pymongo.py did not finish:\n%s", out)
	}
}
