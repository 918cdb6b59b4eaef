package agg

import "github.com/lodedb/lode/internal/agg/accum"

// SpilledRuns returns how many sorted runs have been written to disk.
func SpilledRuns() int64 { return spilledRuns.Load() }

// PeakGroupMem returns the largest $group table seen; ResetPeakGroupMem
// clears it.
func PeakGroupMem() int64 { return peakGroupMem.Load() }
func ResetPeakGroupMem()  { peakGroupMem.Store(0) }

// SetMaxPushBytes sets $push's bound.
var SetMaxPushBytes = accum.SetMaxPushBytes

// ParallelGroups returns how many $group stages ran in parallel.
func ParallelGroups() int64 { return parallelGroups.Load() }
