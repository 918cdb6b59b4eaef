// Package opstats carries the execution figures of one command (the
// keysExamined, docsExamined, nreturned, planSummary, ... that mongod's
// slow-operation log, profiler and query statistics report) from the
// engine's query paths up to the server.
//
// The server keeps one Stats per running command and makes it reachable
// from the command's context (ContextKey). The engine reports into it
// without walking anything per document: a plan iterator adds its stage
// counters once when it closes, and iterators still open when the command
// ends are flushed by the server (FlushOpen), so a getMore reports what
// it examined itself.
package opstats

import "context"

// Flusher is an open source of figures (a plan iterator) that adds what it
// examined since its last flush to st.
type Flusher interface {
	FlushStats(st *Stats)
}

// Stats are one command's figures. The zero value is ready; it is owned by
// the goroutine running the command.
type Stats struct {
	KeysExamined, DocsExamined, NReturned int64
	// Write figures (update, delete, insert, findAndModify).
	NMatched, NModified, NDeleted, NInserted, NUpserted int64
	// Index entries written and removed by the command's writes.
	KeysInserted, KeysDeleted int64
	// PlanSummary is mongod's form of the first plan the command ran:
	// "COLLSCAN", "IXSCAN { a: 1 }", "IDHACK", "EOF".
	PlanSummary  string
	HasSortStage bool
	UsedDisk     bool
	// QueryHash and PlanCacheKey are the plan cache's of the first plan
	// that went through it (HasPlanCacheKey set), rendered by the log.
	QueryHash, PlanCacheKey uint32
	HasPlanCacheKey         bool
	// CursorID is the id of the cursor the command left open (0: none).
	CursorID int64

	open  [4]Flusher
	nOpen int
}

// Generational is a context that can be switched to another command's
// (a cursor's context, switched by each getMore): Generation changes with
// each switch, which an iterator reads to move its figures to the command
// now driving it.
type Generational interface {
	Generation() uint64
}

// Holder is what the server stores in a command's context: something that
// owns the command's Stats.
type Holder interface {
	OpStats() *Stats
}

type key struct{}

// ContextKey is the context key of a command's Holder: the command's
// context (the server's running op) answers Value(ContextKey) with
// itself.
var ContextKey any = key{}

// HolderFrom returns the Holder ctx carries, or nil.
func HolderFrom(ctx context.Context) Holder {
	if ctx == nil {
		return nil
	}
	h, _ := ctx.Value(key{}).(Holder)
	return h
}

// From returns the Stats of the command ctx belongs to, or nil.
func From(ctx context.Context) *Stats {
	if h := HolderFrom(ctx); h != nil {
		return h.OpStats()
	}
	return nil
}

// Plan records a plan's summary figures: the first plan a command runs
// names its planSummary.
func (s *Stats) Plan(summary string, hasSort bool) {
	if s.PlanSummary == "" {
		s.PlanSummary = summary
	}
	if hasSort {
		s.HasSortStage = true
	}
}

// Attach registers f as open: FlushOpen flushes it when the command ends.
// Beyond a few open sources, f reports only when it closes.
func (s *Stats) Attach(f Flusher) {
	for i := 0; i < s.nOpen; i++ {
		if s.open[i] == f {
			return
		}
	}
	if s.nOpen < len(s.open) {
		s.open[s.nOpen] = f
		s.nOpen++
	}
}

// Detach forgets f (it closed and flushed itself).
func (s *Stats) Detach(f Flusher) {
	for i := 0; i < s.nOpen; i++ {
		if s.open[i] == f {
			s.nOpen--
			s.open[i] = s.open[s.nOpen]
			s.open[s.nOpen] = nil
			return
		}
	}
}

// FlushOpen adds the figures of the sources still open and forgets them.
func (s *Stats) FlushOpen() {
	for s.nOpen > 0 {
		s.nOpen--
		f := s.open[s.nOpen]
		s.open[s.nOpen] = nil
		f.FlushStats(s)
	}
}
