package crash

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// directLogs reports whether the filesystem of dir takes O_DIRECT writes
// (tmpfs before Linux 6.6 does not; a log there stays on the page cache).
func directLogs(t *testing.T, dir string) bool {
	t.Helper()
	name := filepath.Join(dir, "direct-probe")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|syscall.O_DIRECT, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(name)
	return true
}
