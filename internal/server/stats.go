package server

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// stats are the server-wide counters that serverStatus reports.
type stats struct {
	current, total atomic.Int64
	rejected       atomic.Int64 // connections closed at accept: over the cap
	insert, query  atomic.Int64
	update, delete atomic.Int64
	getmore, cmd   atomic.Int64
	// docsReturned counts documents sent in cursor batches
	// (metrics.document.returned).
	docsReturned atomic.Int64
	// lat are the command latencies by class (serverStatus opLatencies,
	// the metrics endpoint's histograms).
	lat [numLatencyClasses]latencyHist
}

// Latency classes, as mongod's opLatencies: reads (find, getMore),
// writes (insert, update, delete) and the other commands.
const (
	latReads = iota
	latWrites
	latCommands
	numLatencyClasses
)

// latencyClassNames are opLatencies' field names.
var latencyClassNames = [numLatencyClasses]string{"reads", "writes", "commands"}

// Latency histogram buckets: bucket i counts durations below
// 2^(i+latencyMinShift) microseconds (16 us, 32 us, ... 2^24 us = 16.8 s),
// the last one every longer duration.
const (
	latencyMinShift = 4
	latencyBuckets  = 21
)

// latencyHist is one class's latency histogram: a sum and a counter per
// power-of-two bucket, each updated with one atomic add (two per
// command: the count is the buckets' sum, read when asked for).
type latencyHist struct {
	micros  atomic.Int64
	buckets [latencyBuckets]atomic.Int64
}

// count is the number of commands observed.
func (h *latencyHist) count() int64 {
	var n int64
	for i := range h.buckets {
		n += h.buckets[i].Load()
	}
	return n
}

// observeLatency adds a command of kind k that took d.
func (st *stats) observeLatency(k opKind, d time.Duration) {
	c := latCommands
	switch k {
	case opQuery, opGetMore:
		c = latReads
	case opInsert, opUpdate, opRemove:
		c = latWrites
	}
	us := d.Microseconds()
	if us < 0 {
		us = 0
	}
	h := &st.lat[c]
	h.micros.Add(us)
	i := bits.Len64(uint64(us)) - latencyMinShift
	h.buckets[min(max(i, 0), latencyBuckets-1)].Add(1)
}

func (st *stats) connOpened() { st.current.Add(1); st.total.Add(1) }
func (st *stats) connClosed() { st.current.Add(-1) }
func (st *stats) command()    { st.cmd.Add(1) }

// countCommand bumps the opcounter MongoDB files the command under.
func (st *stats) countCommand(k opKind) {
	switch k {
	case opQuery:
		st.query.Add(1)
	case opGetMore:
		st.getmore.Add(1)
	case opInsert, opUpdate, opRemove:
		// counted per document by the handlers
	default:
		st.cmd.Add(1)
	}
}

// logRing keeps the most recent log lines for getLog.
type logRing struct {
	mu    sync.Mutex
	lines []string
	max   int
	total int
}

func newLogRing(max int) *logRing { return &logRing{max: max} }

func (r *logRing) add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	if len(r.lines) == r.max {
		copy(r.lines, r.lines[1:])
		r.lines = r.lines[:r.max-1]
	}
	r.lines = append(r.lines, line)
}

func (r *logRing) snapshot() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...), r.total
}
