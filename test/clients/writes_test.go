package clients

import (
	"strings"
	"testing"
)

// TestMongoshWrites runs pipeline-style updates, write hints and
// $-prefixed upsert fields through mongosh's helpers.
func TestMongoshWrites(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	out := runMongosh(t, s, "writes_mongosh.js")
	if !strings.Contains(out, "writes OK") {
		t.Fatalf("script did not finish:\n%s", out)
	}
}
