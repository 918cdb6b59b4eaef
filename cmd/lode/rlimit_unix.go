//go:build unix

package main

import (
	"log/slog"
	"syscall"

	"github.com/lodedb/lode/internal/mongolog"
)

// minOpenFiles is the figure mongod's production notes recommend for the
// open-file limit; below lowOpenFiles (fewer than 8,000 connections)
// `lode serve` warns, between the two it says so at info level.
const (
	minOpenFiles = 64000
	lowOpenFiles = 10000
)

// warnFileLimit reports the open-file limit, which bounds the connections
// (each holds a descriptor, and Pebble holds its tables'). The Go runtime
// already raised the soft limit to the hard limit at start, as mongod does.
func warnFileLimit(log *slog.Logger) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return
	}
	attrs := []any{mongolog.KeyComponent, "CONTROL", mongolog.KeyID, mongolog.IDFileLimit, mongolog.KeyCtx, "initandlisten",
		"soft", r.Cur, "hard", r.Max, "maxConnections", r.Cur / 5 * 4}
	switch {
	case r.Cur < lowOpenFiles:
		log.Warn("open-file limit is low; it caps connections at 80% of it", append(attrs, "recommended", minOpenFiles)...)
	case r.Cur < minOpenFiles:
		log.Info("open-file limit caps connections at 80% of it", append(attrs, "recommended", minOpenFiles)...)
	default:
		log.Debug("open-file limit", attrs...)
	}
}
