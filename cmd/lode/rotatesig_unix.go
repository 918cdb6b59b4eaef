//go:build unix

package main

import (
	"os"
	"syscall"
)

// rotateSignals are the signals that rotate the log file (mongod's
// SIGUSR1).
func rotateSignals() []os.Signal { return []os.Signal{syscall.SIGUSR1} }
