package main

import "github.com/lodedb/lode/internal/storage"

// defaultHeapLimit is the Go runtime's soft memory limit (debug.SetMemoryLimit)
// when --memory-budget-mb is not given. Without it the collector's goal is
// GOGC (serverGCPercent) times the live heap, and a goal an index build's
// sort buffers set lingers after them: issue 32 measured queries filling
// 730 MiB of garbage under a 1.1 GB goal. Near the limit the collector
// runs more often instead; a live heap above it (a large request within the
// budget) costs collector CPU, which Go caps at half the process's, not
// memory.
const defaultHeapLimit = 512 << 20

// memtableReserve is what Pebble's memtables may hold: the mutable one and
// one being flushed (storage's MemTableSize is 64 MiB).
const memtableReserve = 2 * 64 << 20

// goMemoryLimit is the soft memory limit of lode serve's Go runtime: the
// memory budget when one was given, else defaultHeapLimit. Where Pebble's
// block cache and memtables live in the Go heap (a build without cgo) they
// are added, so the collector does not chase a full cache.
//
// A given budget bounds the process's resident memory, and the Go
// runtime's share of it is what remains after outside, the bytes resident
// before the heap grows (the program's own mapped text and data, about
// 32 MiB), and an eighth kept as slack for what the limit does not see
// at once (stacks grown, memory not yet scavenged). With the limit at the
// whole budget, GOGC's slack let sixteen abandoned 11 MB queries take RSS
// to 260 MiB under a 256 MiB budget. The limit is never below half the
// budget.
func goMemoryLimit(budgetBytes int64, budgetGiven bool, cacheBytes, outside int64) int64 {
	limit := int64(defaultHeapLimit)
	if budgetGiven {
		limit = max(budgetBytes-outside-budgetBytes/8, budgetBytes/2)
	}
	if storageInGoHeap {
		if cacheBytes == 0 {
			cacheBytes = storage.DefaultCacheSize
		}
		limit += cacheBytes + memtableReserve
	}
	return limit
}
