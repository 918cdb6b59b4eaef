package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lodedb/lode/internal/mongolog"
	"github.com/lodedb/lode/internal/procs"
	"github.com/lodedb/lode/internal/server"
)

// lode serve --metrics-addr serves Prometheus metrics at /metrics, with
// the official Go client library: the server's figures (opcounters,
// latency histograms, connections, cursors, documents, storage engine,
// memory budget) read from server.Server.Metrics at each scrape, and the
// client library's Go runtime and process collectors (heap, GC,
// goroutines, resident memory, open files, CPU).

// metricsCollector turns server.Metrics into Prometheus metrics.
type metricsCollector struct {
	srv *server.Server

	opcounters, documents                   *prometheus.Desc
	connCurrent, connCreated, connRejected  *prometheus.Desc
	connAvailable, cursorsOpen, latency     *prometheus.Desc
	budgetLimit, budgetUsed, uptime         *prometheus.Desc
	commits, syncs                          *prometheus.Desc
	cacheBytes, cacheMax, cacheHits, misses *prometheus.Desc
	openTables, openTablesMax, tableMisses  *prometheus.Desc
	flushes, compactions, compactionDebt    *prometheus.Desc
	l0Files, readAmp, memtableBytes, walB   *prometheus.Desc
	stalls, stallSeconds                    *prometheus.Desc
	procs, procsChanges                     *prometheus.Desc
}

func newMetricsCollector(srv *server.Server) *metricsCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("lode_"+name, help, labels, nil)
	}
	return &metricsCollector{srv: srv,
		opcounters:     d("opcounters_total", "Operations by type, as serverStatus.opcounters (insert, update and delete count documents).", "type"),
		documents:      d("documents_total", "Documents by operation, as serverStatus.metrics.document.", "op"),
		connCurrent:    d("connections_current", "Open client connections."),
		connCreated:    d("connections_created_total", "Client connections accepted since start."),
		connRejected:   d("connections_rejected_total", "Connections closed at once because the connection cap was reached."),
		connAvailable:  d("connections_available", "Connections the cap still allows."),
		cursorsOpen:    d("cursors_open", "Open cursors."),
		latency:        d("op_latency_seconds", "Command latencies by class, as serverStatus.opLatencies (reads: find and getMore; writes: insert, update, delete; commands: the others).", "class"),
		budgetLimit:    d("memory_budget_limit_bytes", "Bytes the memory budget lets requests, sorts and groups reserve."),
		budgetUsed:     d("memory_budget_used_bytes", "Bytes reserved from the memory budget now."),
		uptime:         d("uptime_seconds", "Time since the server started."),
		commits:        d("storage_commits_total", "Write batches committed to the storage engine."),
		syncs:          d("storage_syncs_total", "Fsyncs of the write-ahead log."),
		cacheBytes:     d("storage_block_cache_bytes", "Bytes in the storage engine's block cache."),
		cacheMax:       d("storage_block_cache_max_bytes", "Capacity of the storage engine's block cache (--cache-size-gb)."),
		cacheHits:      d("storage_block_cache_hits_total", "Block cache hits."),
		misses:         d("storage_block_cache_misses_total", "Block cache misses."),
		openTables:     d("storage_open_tables", "Sstables open in the storage engine's table cache."),
		openTablesMax:  d("storage_open_tables_max", "Capacity of the table cache (15% of the open-file limit, 256 to 32,768)."),
		tableMisses:    d("storage_table_cache_misses_total", "Table cache misses: reads that opened an sstable."),
		flushes:        d("storage_flushes_total", "Memtable flushes."),
		compactions:    d("storage_compactions_total", "Compactions."),
		compactionDebt: d("storage_compaction_debt_bytes", "Estimated bytes compactions are behind."),
		l0Files:        d("storage_l0_files", "Files in level 0 of the LSM tree."),
		readAmp:        d("storage_read_amplification", "Read amplification of the LSM tree."),
		memtableBytes:  d("storage_memtable_bytes", "Bytes in memtables."),
		walB:           d("storage_wal_bytes", "Bytes of the live write-ahead log."),
		stalls:         d("storage_write_stalls_total", "Write stalls of the storage engine."),
		stallSeconds:   d("storage_write_stall_seconds_total", "Time writes stalled."),
		procs:          d("procs", "Processors the Go scheduler runs on now (GOMAXPROCS): 1 while requests come one at a time, with --adapt-procs."),
		procsChanges:   d("procs_changes_total", "Times --adapt-procs lowered the processors to one (to=\"one\") or raised them back (to=\"all\").", "to"),
	}
}

// Describe implements prometheus.Collector.
func (c *metricsCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

// Collect implements prometheus.Collector.
func (c *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.srv.Metrics()
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for name, v := range m.Opcounters {
		counter(c.opcounters, float64(v), name)
	}
	for name, v := range m.Documents {
		counter(c.documents, float64(v), name)
	}
	gauge(c.connCurrent, float64(m.ConnectionsCurrent))
	counter(c.connCreated, float64(m.ConnectionsCreated))
	counter(c.connRejected, float64(m.ConnectionsRejected))
	gauge(c.connAvailable, float64(m.ConnectionsAvailable))
	gauge(c.cursorsOpen, float64(m.OpenCursors))
	for _, h := range m.Latencies {
		buckets := make(map[float64]uint64, len(h.Buckets))
		for i, ub := range h.UpperBounds {
			if ub > 0 { // the last, unbounded one is the count
				buckets[ub.Seconds()] = h.Buckets[i]
			}
		}
		ch <- prometheus.MustNewConstHistogram(c.latency, h.Count, h.Sum.Seconds(), buckets, h.Class)
	}
	gauge(c.budgetLimit, float64(m.MemoryBudgetLimit))
	gauge(c.budgetUsed, float64(m.MemoryBudgetUsed))
	gauge(c.uptime, m.Uptime.Seconds())
	s := m.Storage
	counter(c.commits, float64(m.Durability.Commits))
	counter(c.syncs, float64(m.Durability.Syncs))
	gauge(c.cacheBytes, float64(s.BlockCacheBytes))
	gauge(c.cacheMax, float64(s.BlockCacheMaxBytes))
	counter(c.cacheHits, float64(s.BlockCacheHits))
	counter(c.misses, float64(s.BlockCacheMisses))
	gauge(c.openTables, float64(s.OpenTables))
	gauge(c.openTablesMax, float64(s.OpenTablesMax))
	counter(c.tableMisses, float64(s.TableCacheMisses))
	counter(c.flushes, float64(s.Flushes))
	counter(c.compactions, float64(s.Compactions))
	gauge(c.compactionDebt, float64(s.CompactionDebtBytes))
	gauge(c.l0Files, float64(s.L0Files))
	gauge(c.readAmp, float64(s.ReadAmp))
	gauge(c.memtableBytes, float64(s.MemtableBytes))
	gauge(c.walB, float64(s.WALBytes))
	counter(c.stalls, float64(s.WriteStalls))
	counter(c.stallSeconds, (time.Duration(s.WriteStallMillis) * time.Millisecond).Seconds())
	n, lowered, raised := procs.Current().Stats()
	gauge(c.procs, float64(n))
	counter(c.procsChanges, float64(lowered), "one")
	counter(c.procsChanges, float64(raised), "all")
}

// startMetrics serves /metrics on addr until the returned function is
// called.
func startMetrics(addr string, srv *server.Server, log *slog.Logger) (stop func(), err error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newMetricsCollector(srv),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("metrics endpoint stopped", "err", err)
		}
	}()
	log.Info("Serving Prometheus metrics", mongolog.KeyComponent, "CONTROL", "addr", "http://"+ln.Addr().String()+"/metrics")
	return func() { _ = hs.Close() }, nil
}
