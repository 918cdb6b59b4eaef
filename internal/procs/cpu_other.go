//go:build !unix

package procs

import "time"

// processCPU: this system's process CPU time is not read here, so no
// Adapter starts.
func processCPU() (time.Duration, bool) { return 0, false }
