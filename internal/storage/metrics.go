package storage

import (
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// EngineMetrics are Pebble's figures that explain latency: flushes,
// compactions and their debt, the shape of level 0, the memtables, the
// block cache and write stalls. serverStatus reports them under
// lode.storage so that a stall can be told from a slow query.
type EngineMetrics struct {
	Flushes, FlushesInProgress         int64
	Compactions, CompactionsInProgress int64
	CompactionDebtBytes                uint64
	L0Files                            int64
	L0Sublevels                        int32
	ReadAmp                            int
	MemtableBytes                      uint64
	Memtables                          int64
	BlockCacheBytes, BlockCacheHits    int64
	BlockCacheMaxBytes                 int64 // the configured capacity
	BlockCacheMisses                   int64
	// OpenTables is the sstables open in Pebble's table cache, of at most
	// OpenTablesMax; a miss (TableCacheMisses) opens one.
	OpenTables, OpenTablesMax        int64
	TableCacheHits, TableCacheMisses int64
	WriteStalls                      int64
	WriteStallMillis                 int64
	WALBytes                         uint64
	// Ingestions counts the sstables sets Pebble ingested (index builds
	// and bulk inserts); CommitsByIngestion the bulk inserts' batches
	// among them (ingestcommit.go).
	Ingestions, CommitsByIngestion int64
}

// stallCounter counts Pebble's write stalls and their total duration; its
// methods are Pebble event listener callbacks.
type stallCounter struct {
	n       atomic.Int64
	nanos   atomic.Int64
	started atomic.Int64 // unix nanos of the open stall, 0 when none
}

func (s *stallCounter) begin(pebble.WriteStallBeginInfo) {
	s.n.Add(1)
	s.started.Store(time.Now().UnixNano())
}

func (s *stallCounter) end() {
	if t := s.started.Swap(0); t != 0 {
		s.nanos.Add(time.Now().UnixNano() - t)
	}
}

// Metrics returns the current engine metrics.
func (db *DB) Metrics() EngineMetrics {
	m := db.pdb.Metrics()
	stallNanos := db.stalls.nanos.Load()
	if t := db.stalls.started.Load(); t != 0 {
		stallNanos += time.Now().UnixNano() - t // a stall under way counts so far
	}
	return EngineMetrics{
		Flushes:               m.Flush.Count,
		FlushesInProgress:     m.Flush.NumInProgress,
		Compactions:           m.Compact.Count,
		CompactionsInProgress: m.Compact.NumInProgress,
		CompactionDebtBytes:   m.Compact.EstimatedDebt,
		L0Files:               m.Levels[0].TablesCount,
		L0Sublevels:           m.Levels[0].Sublevels,
		ReadAmp:               m.ReadAmp(),
		MemtableBytes:         m.MemTable.Size,
		Memtables:             m.MemTable.Count,
		BlockCacheBytes:       m.BlockCache.Size,
		BlockCacheMaxBytes:    db.cacheSize,
		BlockCacheHits:        m.BlockCache.Hits,
		BlockCacheMisses:      m.BlockCache.Misses,
		OpenTables:            m.FileCache.TableCount,
		OpenTablesMax:         int64(db.popts.MaxOpenFiles),
		TableCacheHits:        m.FileCache.Hits,
		TableCacheMisses:      m.FileCache.Misses,
		WriteStalls:           db.stalls.n.Load(),
		WriteStallMillis:      stallNanos / 1e6,
		WALBytes:              m.WAL.Size,
		Ingestions:            int64(m.Ingest.Count),
		CommitsByIngestion:    db.ingestCommits.Load(),
	}
}

// indexUsageTTL is how long IndexDiskUsage reuses an estimate.
const indexUsageTTL = time.Second

type usageEntry struct {
	bytes uint64
	at    time.Time
}

// IndexDiskUsage is EstimateDiskUsage over the whole of index indexID,
// reused for up to a second: the planner weighs a range against it on
// every query, and an index's size moves slowly.
func (db *DB) IndexDiskUsage(indexID uint64) (uint64, error) {
	now := time.Now()
	db.usageMu.Lock()
	e, ok := db.usage[indexID]
	db.usageMu.Unlock()
	if ok && now.Sub(e.at) < indexUsageTTL {
		return e.bytes, nil
	}
	lo, hi := indexRange(indexID)
	n, err := db.EstimateDiskUsage(lo, hi)
	if err != nil {
		return 0, err
	}
	db.usageMu.Lock()
	if db.usage == nil {
		db.usage = map[uint64]usageEntry{}
	}
	db.usage[indexID] = usageEntry{n, now}
	db.usageMu.Unlock()
	return n, nil
}

// FSUsage is the used and total bytes of the filesystem that holds the
// data directory (dbStats' fsUsedSize and fsTotalSize); ok is false when
// the filesystem does not say (an in-memory one).
func (db *DB) FSUsage() (used, total uint64, ok bool) {
	du, err := db.fs.GetDiskUsage(db.dir)
	if err != nil || du.TotalBytes == 0 {
		return 0, 0, false
	}
	return du.UsedBytes, du.TotalBytes, true
}
