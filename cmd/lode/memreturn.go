package main

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	"time"
)

// Memory a burst left in the Go heap is returned to the OS when the heap
// the process retains (in use or free, not yet released) stays more than
// returnThreshold above what it kept after the last return, for two
// checks in a row (returnEvery apart): FreeOSMemory then collects the
// garbage and releases the free pages. Without this an idle server keeps its peak: its last GC set a
// high heap goal, no allocation triggers another, and the scavenger
// releases nothing below that goal (issue 15 measured RSS staying at
// 761 MB after sixteen 11 MB queries).
const (
	returnEvery     = 5 * time.Second
	returnThreshold = 256 << 20
)

// returnMemory runs until ctx ends.
func returnMemory(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(returnEvery)
	defer t.Stop()
	high := 0
	var kept uint64 // retained heap after the last return
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		retained := ms.HeapSys - ms.HeapReleased
		if retained < kept+returnThreshold {
			high = 0
			kept = min(kept, retained)
			continue
		}
		if high++; high < 2 {
			continue
		}
		high = 0
		debug.FreeOSMemory()
		runtime.ReadMemStats(&ms)
		kept = ms.HeapSys - ms.HeapReleased
		log.Debug("returned heap memory to the OS", "retained_before", retained, "retained_after", kept)
	}
}
