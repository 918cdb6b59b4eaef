package server

import (
	"time"

	"github.com/lodedb/lode/internal/storage"
)

// Metrics is a snapshot of the server's figures, for a metrics exporter
// (lode serve --metrics-addr): the counters serverStatus reports, read
// without running a command.
type Metrics struct {
	// Opcounters are serverStatus.opcounters by name (insert, query,
	// update, delete, getmore, command).
	Opcounters map[string]int64
	// Connections: open now, created since start, refused over the cap,
	// and how many more the cap allows.
	ConnectionsCurrent, ConnectionsCreated, ConnectionsRejected, ConnectionsAvailable int64
	// OpenCursors are the cursors open now.
	OpenCursors int64
	// Latencies are the command latency histograms by class (reads,
	// writes, commands), as serverStatus.opLatencies counts them.
	Latencies []LatencyHistogram
	// Documents are metrics.document by name (inserted, updated,
	// deleted, returned).
	Documents map[string]int64
	// Storage is the storage engine's figures (serverStatus.lode.storage)
	// and Durability its commit and fsync counters.
	Storage    storage.EngineMetrics
	Durability storage.Stats
	// MemoryBudgetLimit and MemoryBudgetUsed are the memory budget's
	// bytes (serverStatus.lode.memoryBudget).
	MemoryBudgetLimit, MemoryBudgetUsed int64
	// Uptime is the time since the server started.
	Uptime time.Duration
}

// LatencyHistogram is one latency class's histogram: Count commands
// took Sum in all; Buckets[i] is how many took at most UpperBounds[i]
// (cumulative, as Prometheus' buckets), the last bound being +Inf.
type LatencyHistogram struct {
	Class       string
	Count       uint64
	Sum         time.Duration
	UpperBounds []time.Duration // the last is 0: no bound (+Inf)
	Buckets     []uint64
}

// Metrics returns the server's figures now.
func (s *Server) Metrics() Metrics {
	st := &s.stats
	ds := s.eng.DocumentStats()
	budget := s.eng.Params().Budget
	m := Metrics{
		Opcounters: map[string]int64{"insert": st.insert.Load(), "query": st.query.Load(), "update": st.update.Load(),
			"delete": st.delete.Load(), "getmore": st.getmore.Load(), "command": st.cmd.Load()},
		ConnectionsCurrent:   st.current.Load(),
		ConnectionsCreated:   st.total.Load(),
		ConnectionsRejected:  st.rejected.Load(),
		ConnectionsAvailable: max(s.maxConnections()-st.current.Load(), 0),
		OpenCursors:          int64(s.cursors.Len()),
		Documents: map[string]int64{"inserted": ds.Inserted, "updated": ds.Updated, "deleted": ds.Deleted,
			"returned": st.docsReturned.Load()},
		Storage:           s.eng.StorageMetrics(),
		Durability:        s.eng.StorageStats(),
		MemoryBudgetLimit: budget.Limit(),
		MemoryBudgetUsed:  budget.Used(),
		Uptime:            time.Since(s.started),
	}
	for c := range st.lat {
		h := &st.lat[c]
		lh := LatencyHistogram{Class: latencyClassNames[c],
			Sum:         time.Duration(h.micros.Load()) * time.Microsecond,
			UpperBounds: make([]time.Duration, latencyBuckets), Buckets: make([]uint64, latencyBuckets)}
		var cum uint64
		for i := range h.buckets {
			cum += uint64(h.buckets[i].Load())
			lh.Buckets[i] = cum
			if i < latencyBuckets-1 {
				lh.UpperBounds[i] = time.Duration(1<<(i+latencyMinShift)) * time.Microsecond
			}
		}
		lh.Count = cum // the +Inf bucket, read after the others
		m.Latencies = append(m.Latencies, lh)
	}
	return m
}
