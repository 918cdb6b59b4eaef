//go:build unix

package main

import (
	"log/slog"
	"syscall"
)

// minOpenFiles is the open-file limit below which `lode serve` warns, the
// figure mongod's production notes recommend.
const minOpenFiles = 64000

// warnFileLimit reports the open-file limit, which bounds the connections
// (each holds a descriptor, and Pebble holds its tables'). The Go runtime
// already raised the soft limit to the hard limit at start, as mongod does.
func warnFileLimit(log *slog.Logger) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return
	}
	if r.Cur < minOpenFiles {
		log.Warn("open-file limit is low; it caps connections at 80% of it", "soft", r.Cur, "hard", r.Max, "recommended", minOpenFiles)
		return
	}
	log.Debug("open-file limit", "soft", r.Cur, "hard", r.Max)
}
