package sim

import (
	"bytes"
	"strings"
	"testing"
)

// TestBarPlainWhenNotTerminal: into a buffer (a log file, a pipe) the bar
// writes plain lines, without carriage-return frames.
func TestBarPlainWhenNotTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := NewBar(&buf, "loading")
	for i := 0; i <= 1000; i++ {
		b.Set(i, 1000)
	}
	out := buf.String()
	if strings.Contains(out, "\r") {
		t.Fatalf("carriage returns in non-terminal output: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || lines[len(lines)-1] != "loading: 100% 1000/1000" {
		t.Fatalf("output %q: want a first line and the final state", out)
	}
}
