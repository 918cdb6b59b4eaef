package clients

import (
	"strings"
	"testing"
)

// TestSessionsPymongo: the session cache, config.system.sessions,
// endSessions and killAllSessionsByPattern through pymongo 3.11.
func TestSessionsPymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--set-parameter", "enableTestCommands=1")
	if out := runPython(t, s, "sessions_pymongo.py"); !strings.Contains(out, "sessions pymongo OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}
