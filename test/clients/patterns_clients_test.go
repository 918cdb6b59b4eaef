package clients

import (
	"strings"
	"testing"
)

// skips logs the SKIP lines a script printed for server features that
// have not landed yet, so they show in the test output.
func skips(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "SKIP ") {
			t.Log(line)
		}
	}
}

// TestSeedScripts runs seed 003's Python through pymongo 3.11, each
// script against its own `lode serve` (the seeds' shell code runs in
// TestMongoshScripts).
func TestSeedScripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		python bool
		ok     string
	}{
		{"seed003_transfer.py", true, "seed003 transfer OK"},
		{"seed003_eventlog.py", true, "seed003 eventlog OK"},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel() // each script has its own server
			s := startServer(t)
			var out string
			if tc.python {
				out = runPython(t, s, tc.script)
			} else {
				out = runMongosh(t, s, tc.script)
			}
			if !strings.Contains(out, tc.ok) {
				t.Fatalf("script did not finish:\n%s", out)
			}
			skips(t, out)
		})
	}
}
