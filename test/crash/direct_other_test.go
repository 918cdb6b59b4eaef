//go:build !linux

package crash

import "testing"

// directLogs: logs take direct writes on Linux only.
func directLogs(t *testing.T, dir string) bool { return false }
