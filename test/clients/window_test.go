package clients

import (
	"strings"
	"testing"
)

// TestWindowPymongo: $setWindowFields and $fill through pymongo 3.11
// (window_pymongo.py).
func TestWindowPymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runPython(t, s, "window_pymongo.py")
	if !strings.Contains(out, "window ok") {
		t.Fatalf("window_pymongo.py did not finish:\n%s", out)
	}
}
