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
