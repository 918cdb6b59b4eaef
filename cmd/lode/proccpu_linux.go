package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time (user and system, every thread) process
// pid has used, read from its CPU-time clock (clock id (^pid << 3) | 2,
// the kernel's CPUCLOCK_SCHED, in nanoseconds; /proc/PID/stat counts
// 10 ms ticks). It returns 0 when the clock cannot be read.
func processCPU(pid int) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(int32(^uint32(pid)<<3|2), &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
