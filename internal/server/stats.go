package server

import (
	"sync"
	"sync/atomic"
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
