//go:build !unix

package changestreams

import "time"

// cpuTime is not measured here: cpu-us/write reads 0.
func cpuTime() time.Duration { return 0 }
