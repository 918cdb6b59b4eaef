//go:build linux && race

package server

import "sync/atomic"

// raceIOSync tells the race detector what the socket orders. The raw
// system calls of rawio_linux.go bypass the syscall package, whose Read
// and Write mark every write as happening before every later read (one
// shared synchronisation point), so without this a reply written on one
// connection and acted on by a client's next request on another (a
// cursor id, killCursors) looks like a race. Only in race builds.
var raceIOSync atomic.Uint64

// raceReleaseIO runs before a socket write.
func raceReleaseIO() { raceIOSync.Add(1) }

// raceAcquireIO runs after a socket read that returned bytes.
func raceAcquireIO() { raceIOSync.Load() }
