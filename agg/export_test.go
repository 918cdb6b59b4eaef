package agg

// SpilledRuns returns how many sorted runs have been written to disk.
func SpilledRuns() int64 { return spilledRuns.Load() }
