package agg

import (
	"sync/atomic"

	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/membudget"
)

// groupWorker folds documents into one group table. A $group has one;
// a parallel $group (groupparallel.go) has one per goroutine, sharing
// the memory count.
type groupWorker struct {
	g     *groupStage
	rc    *runCtx
	vars  *expr.Vars
	t     *groupTable
	k     keyer
	sp    *spiller
	limit int64
	// total, when not nil, is the memory of every worker's table.
	total *atomic.Int64
	// fold, in a parallel $group, folds the finished ranges' tables; it
	// stops, spilling them, before the worker spills (groupfold.go).
	fold *tableFolder
	// res is the table's share of the instance's memory budget while the
	// worker folds documents into it (in a parallel $group, until the
	// table is folded, spilled or merged).
	res membudget.Reservation
}

func (g *groupStage) newWorker(rc *runCtx, vars *expr.Vars, sp *spiller, total *atomic.Int64) *groupWorker {
	return &groupWorker{g: g, rc: rc, vars: vars, t: &groupTable{groups: map[string]*group{}},
		k: keyer{g: g}, sp: sp, limit: rc.pc.groupMemLimit(), total: total,
		res: membudget.For(rc.pc.budget())}
}

// run folds all of in. Past the memory limit (counted over all workers)
// the worker spills its own table, or fails when disk use is not
// allowed.
func (w *groupWorker) run(in Iterator) error {
	if w.fold == nil {
		defer w.res.Release()
	} // else the finished table stays reserved until folded, spilled or merged (groupfold.go)
	g, t, vars := w.g, w.t, w.vars
	for n := int64(0); ; n++ {
		d, err := nextChecked(w.rc.ctx, in, n)
		if err != nil {
			return err
		}
		if d == nil {
			return nil
		}
		ks, err := w.k.hash(d, vars)
		if err != nil {
			return err
		}
		var delta int64
		gr := t.groups[string(ks)]
		if gr == nil {
			var m int64
			gr, m, err = g.newGroup(w.k.value(), vars)
			if err != nil {
				return err
			}
			key := string(ks)
			t.groups[key] = gr
			t.order = append(t.order, gr)
			t.keys = append(t.keys, key)
			delta = m + int64(len(key))
		}
		dm, err := g.add(gr, d, vars)
		if err != nil {
			return err
		}
		delta += dm
		if delta == 0 {
			continue // nothing grew: the counts and limit are as they were
		}
		t.mem += delta
		mem := t.mem
		if w.total != nil {
			mem = w.total.Add(delta)
		}
		w.rc.pc.params().NotePeakGroupMem(mem)
		if over := mem > w.limit; over || t.mem > membudget.Floor && !w.res.Grow(t.mem) {
			if !w.rc.pc.AllowDiskUse {
				if !over {
					return budgetError("$group", w.res.Budget())
				}
				return memoryError("$group", w.limit)
			}
			w.res.Release()
			if w.fold != nil {
				if err := w.fold.stop(); err != nil {
					return err
				}
			}
			if w.total != nil {
				w.total.Add(-t.mem)
			}
			if err := g.spillTable(t, w.sp); err != nil {
				return err
			}
		}
	}
}
