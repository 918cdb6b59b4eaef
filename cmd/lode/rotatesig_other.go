//go:build !unix

package main

import "os"

// rotateSignals: no signal rotates the log here; the logRotate command
// does.
func rotateSignals() []os.Signal { return nil }
