//go:build unix

package storage

import "syscall"

// fileLimit returns the soft limit on open file descriptors, which the Go
// runtime raised to the hard limit at start.
func fileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	return uint64(r.Cur), true
}
