package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/lodedb/lode/internal/query/plan"
)

// Index access counters, as $indexStats reports them: how many operations
// ran a plan that scans the index (mongod counts the chosen plan, not the
// candidates of a trial, and neither does explain count), since the
// counting began. The counters live in memory; the server saves them
// with its query statistics (internal/server querystats_store.go) and
// gives them back with RestoreIndexAccess when it starts, so that they
// count across restarts (mongod's start from zero at each start), and
// each carries how long the server actually ran while it counted (its
// observed time), which is what `lode advise` needs before it calls an
// index unused.

// indexAccess is one index's counter.
type indexAccess struct {
	ops   atomic.Int64
	since time.Time
	// observed is the running time counted before live (earlier runs);
	// live is when this process began counting.
	observed time.Duration
	live     time.Time
}

// indexUse maps index ids to their counters.
type indexUse struct {
	opened time.Time
	m      sync.Map // uint64 -> *indexAccess
}

func (u *indexUse) get(id uint64) *indexAccess {
	if a, ok := u.m.Load(id); ok {
		return a.(*indexAccess)
	}
	now := time.Now()
	a, _ := u.m.LoadOrStore(id, &indexAccess{since: now, live: now})
	return a.(*indexAccess)
}

// note counts one use of every index s scans.
func (u *indexUse) note(s *plan.Solution) {
	if s == nil {
		return
	}
	seen := map[uint64]bool{}
	walkSolution(s.Root, func(n *plan.Node) {
		if n.Index != nil && !seen[n.Index.ID] {
			seen[n.Index.ID] = true
			u.get(n.Index.ID).ops.Add(1)
		}
	})
}

// IndexAccesses returns how many operations used index id and since when.
func (e *Engine) IndexAccesses(id uint64) (ops int64, since time.Time) {
	a := e.indexUse.get(id)
	return a.ops.Load(), a.since
}

// IndexAccess is one index's access counter as saved and restored.
type IndexAccess struct {
	DB, Coll, Name string
	ID             uint64
	// Ops operations used the index since Since, during Observed of
	// server running time.
	Ops      int64
	Since    time.Time
	Observed time.Duration
}

// IndexAccessSnapshot returns the counters of every index of every
// collection, as of now.
func (e *Engine) IndexAccessSnapshot() []IndexAccess {
	var out []IndexAccess
	now := time.Now()
	for _, db := range e.cat.Load().sortedDBNames() { // not ListDatabases: no sizes
		colls, _ := e.ListCollections(db)
		for _, c := range colls {
			ixs, err := e.ListIndexes(db, c.Name)
			if err != nil {
				continue
			}
			for _, ix := range ixs {
				a := e.indexUse.get(ix.ID)
				out = append(out, IndexAccess{DB: db, Coll: c.Name, Name: ix.Name, ID: ix.ID,
					Ops: a.ops.Load(), Since: a.since, Observed: a.observed + now.Sub(a.live)})
			}
		}
	}
	return out
}

// RestoreIndexAccess gives back a saved counter: when r's index still
// exists (same id, namespace and name), its counter continues from r's
// operations, start and observed time, and RestoreIndexAccess reports
// true. Call it before operations run.
func (e *Engine) RestoreIndexAccess(r IndexAccess) bool {
	ixs, err := e.ListIndexes(r.DB, r.Coll)
	if err != nil {
		return false
	}
	for _, ix := range ixs {
		if ix.ID != r.ID || ix.Name != r.Name {
			continue
		}
		cur := e.indexUse.get(r.ID)
		a := &indexAccess{since: r.Since, observed: r.Observed, live: cur.live}
		a.ops.Store(r.Ops + cur.ops.Load())
		e.indexUse.m.Store(r.ID, a)
		return true
	}
	return false
}
