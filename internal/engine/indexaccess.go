package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/lodedb/lode/internal/query/plan"
)

// Index access counters, as $indexStats reports them: how many operations
// ran a plan that scans the index (mongod counts the chosen plan, not the
// candidates of a trial, and neither does explain count), since the engine
// opened or the index was created. Counters live in memory only.

// indexAccess is one index's counter.
type indexAccess struct {
	ops   atomic.Int64
	since time.Time
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
	a, _ := u.m.LoadOrStore(id, &indexAccess{since: time.Now()})
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
