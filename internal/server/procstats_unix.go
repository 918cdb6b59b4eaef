//go:build unix

package server

import "syscall"

// maxOpenFiles returns the soft limit on open file descriptors.
func maxOpenFiles() (int64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	if r.Cur > 1<<40 { // RLIM_INFINITY
		return 1 << 40, true
	}
	return int64(r.Cur), true
}
