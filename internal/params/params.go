// Package params holds what one Lode instance keeps for itself rather
// than for the whole process: the runtime-settable server parameters
// (setParameter/getParameter) that the engine, the query executor and the
// aggregation pipeline read, the instance's memory budget, and the
// counters of those components that serverStatus and tests read.
//
// An engine creates one Set when it opens (engine.Open) and hands it down
// explicitly: the server reads and writes it for setParameter and
// getParameter, the planner and SORT stages read the query knobs, and
// agg.ParseContext carries it to $sort, $group and the accumulators. Two
// instances in one process therefore never see each other's settings,
// and a closed instance leaves nothing behind in package state.
//
// Every field is an atomic, so readers on hot paths pay one load.
package params

import (
	"sync/atomic"

	"github.com/lodedb/lode/internal/membudget"
)

// MongoDB's defaults for the parameters of a Set.
const (
	// DefaultMaxScansToExplode is internalQueryMaxScansToExplode.
	DefaultMaxScansToExplode = 200
	// DefaultMaxBlockingSortBytes is
	// internalQueryMaxBlockingSortMemoryUsageBytes (100 MB).
	DefaultMaxBlockingSortBytes = 100 << 20
	// DefaultGroupMaxBytes is internalDocumentSourceGroupMaxMemoryBytes.
	DefaultGroupMaxBytes = 100 << 20
	// DefaultWindowMaxBytes is
	// internalDocumentSourceSetWindowFieldsMaxMemoryBytes.
	DefaultWindowMaxBytes = 100 << 20
	// DefaultMaxPushBytes is internalQueryMaxPushBytes.
	DefaultMaxPushBytes = 100 << 20
	// DefaultMaxAddToSetBytes is internalQueryMaxAddToSetBytes.
	DefaultMaxAddToSetBytes = 100 << 20
	// DefaultSnapshotHistorySeconds is minSnapshotHistoryWindowInSeconds.
	DefaultSnapshotHistorySeconds = 300
	// DefaultGraphLookupMaxBytes is
	// internalDocumentSourceGraphLookupMaxMemoryBytes (100 MB).
	DefaultGraphLookupMaxBytes = 100 << 20
	// DefaultDensifyMaxBytes is internalDocumentSourceDensifyMaxMemoryBytes
	// (100 MB).
	DefaultDensifyMaxBytes = 100 << 20
	// DefaultDensifyMaxDocs is internalQueryMaxAllowedDensifyDocs.
	DefaultDensifyMaxDocs = 500000
)

// Set is one instance's parameters, memory budget and counters. Create it
// with New; a Set must not be copied.
type Set struct {
	// MaxScansToExplode is internalQueryMaxScansToExplode: the most index
	// scans a SORT_MERGE plan may merge (0 disables SORT_MERGE).
	MaxScansToExplode atomic.Int64
	// MaxBlockingSortBytes is internalQueryMaxBlockingSortMemoryUsageBytes:
	// what a blocking sort (find's SORT, $sort, $bucketAuto, $sample,
	// $facet's input) may hold before it spills or fails with 292.
	MaxBlockingSortBytes atomic.Int64
	// GroupMaxBytes is internalDocumentSourceGroupMaxMemoryBytes, the same
	// bound for $group and $bucket.
	GroupMaxBytes atomic.Int64
	// WindowMaxBytes is internalDocumentSourceSetWindowFieldsMaxMemoryBytes:
	// what $setWindowFields may hold (its partition buffer and window
	// states) before it spills the buffer or fails with 5414201.
	WindowMaxBytes atomic.Int64
	// MaxPushBytes and MaxAddToSetBytes are internalQueryMaxPushBytes and
	// internalQueryMaxAddToSetBytes: what one $push or $addToSet
	// accumulator may hold (past it: ExceededMemoryLimit, 146).
	MaxPushBytes, MaxAddToSetBytes atomic.Int64
	// AllowDiskUseByDefault is MongoDB 7.0's allowDiskUseByDefault: a find
	// or aggregate without an explicit allowDiskUse may spill.
	AllowDiskUseByDefault atomic.Bool
	// SnapshotHistorySeconds is minSnapshotHistoryWindowInSeconds: how
	// long a snapshot taken for a snapshot read (readConcern "snapshot"
	// outside a transaction) stays readable at its atClusterTime after
	// its last use.
	SnapshotHistorySeconds atomic.Int64
	// GraphLookupMaxBytes is internalDocumentSourceGraphLookupMaxMemoryBytes:
	// what one $graphLookup search may hold (its visited documents and
	// frontier) before it fails with 40099; it does not spill.
	GraphLookupMaxBytes atomic.Int64
	// DensifyMaxBytes is internalDocumentSourceDensifyMaxMemoryBytes: what
	// $densify's table of partitions may hold (past it: 6007200).
	DensifyMaxBytes atomic.Int64
	// DensifyMaxDocs is internalQueryMaxAllowedDensifyDocs: how many
	// documents one $densify may generate (past it: 5897900).
	DensifyMaxDocs atomic.Int64

	// Budget bounds the sum of the instance's large transient structures
	// (requests, blocking sorts, $group tables); never nil.
	Budget *membudget.Budget

	// Stats are the instance's aggregation counters.
	Stats Stats
}

// Stats counts what the aggregation pipeline did, for tests and
// diagnostics.
type Stats struct {
	// SpilledRuns counts the sorted runs written to disk.
	SpilledRuns atomic.Int64
	// ParallelGroups counts the $group stages run in parallel.
	ParallelGroups atomic.Int64
	// PeakGroupMem is the largest $group table seen, in bytes.
	PeakGroupMem atomic.Int64
	// PeakWindowMem is the most a $setWindowFields stage held, in bytes.
	PeakWindowMem atomic.Int64
}

// New returns a Set with MongoDB's defaults drawing on budget; a nil
// budget gets a new unlimited one.
func New(budget *membudget.Budget) *Set {
	if budget == nil {
		budget = new(membudget.Budget)
	}
	s := &Set{Budget: budget}
	s.MaxScansToExplode.Store(DefaultMaxScansToExplode)
	s.MaxBlockingSortBytes.Store(DefaultMaxBlockingSortBytes)
	s.GroupMaxBytes.Store(DefaultGroupMaxBytes)
	s.WindowMaxBytes.Store(DefaultWindowMaxBytes)
	s.MaxPushBytes.Store(DefaultMaxPushBytes)
	s.MaxAddToSetBytes.Store(DefaultMaxAddToSetBytes)
	s.AllowDiskUseByDefault.Store(true)
	s.SnapshotHistorySeconds.Store(DefaultSnapshotHistorySeconds)
	s.GraphLookupMaxBytes.Store(DefaultGraphLookupMaxBytes)
	s.DensifyMaxBytes.Store(DefaultDensifyMaxBytes)
	s.DensifyMaxDocs.Store(DefaultDensifyMaxDocs)
	return s
}

// NotePeakGroupMem raises Stats.PeakGroupMem to mem if it is larger.
func (s *Set) NotePeakGroupMem(mem int64) {
	for {
		p := s.Stats.PeakGroupMem.Load()
		if mem <= p || s.Stats.PeakGroupMem.CompareAndSwap(p, mem) {
			return
		}
	}
}

// NotePeakWindowMem raises Stats.PeakWindowMem to mem if it is larger.
func (s *Set) NotePeakWindowMem(mem int64) {
	for {
		p := s.Stats.PeakWindowMem.Load()
		if mem <= p || s.Stats.PeakWindowMem.CompareAndSwap(p, mem) {
			return
		}
	}
}
