package clients

import (
	"strings"
	"testing"
)

// TestSessionsMongosh: $listLocalSessions, refreshLogicalSessionCacheNow,
// $listSessions on config.system.sessions and killSessions in mongosh.
func TestSessionsMongosh(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--enable-test-commands")
	if out := runMongosh(t, s, "sessions_mongosh.js"); !strings.Contains(out, "sessions mongosh OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}

// TestSessionsPymongo: the session cache, config.system.sessions,
// endSessions and killAllSessionsByPattern through pymongo 3.11.
func TestSessionsPymongo(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--set-parameter", "enableTestCommands=1")
	if out := runPython(t, s, "sessions_pymongo.py"); !strings.Contains(out, "sessions pymongo OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}
