package agg

import (
	"sync"
	"sync/atomic"

	"github.com/lodedb/lode/internal/agg/accum"
	"github.com/lodedb/lode/internal/membudget"
)

// tableFolder folds the tables of a parallel $group's ranges into the
// first range's table as they finish, in range order, while the other
// ranges are still being grouped: memory holds the groups met so far
// once, plus the tables of the ranges in flight, rather than every
// range's table until the end (where little is then left to merge).
//
// Folding stops for good at the first spill (stop): the spill merge
// needs each range's runs in range order. Every finished table is then
// spilled as its range's run (the first table, holding the ranges folded
// so far, as the first range's), and so is each table that finishes
// after: memory holds only the tables in flight, which spill themselves
// past the limit.
type tableFolder struct {
	g       *groupStage
	workers []*groupWorker
	sps     []*spiller
	total   *atomic.Int64

	mu       sync.Mutex
	finished []bool
	next     int  // the ranges before next are in the first table
	stopped  bool // a range spilled: no more folding
}

func newTableFolder(g *groupStage, workers []*groupWorker, sps []*spiller, total *atomic.Int64) *tableFolder {
	return &tableFolder{g: g, workers: workers, sps: sps, total: total, finished: make([]bool, len(workers))}
}

// finish records that range i is grouped and folds every finished range
// that follows the folded ones, or, once folding has stopped, spills
// range i's table.
func (f *tableFolder) finish(i int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished[i] = true
	if f.stopped {
		return f.spill(i)
	}
	for f.next < len(f.workers) && f.finished[f.next] {
		if f.next > 0 {
			base, w := f.workers[0], f.workers[f.next]
			delta, err := f.g.foldTable(base.t, w.t)
			if err != nil {
				return err
			}
			f.total.Add(delta)
			// The folded table's reservation passes to the first table.
			w.res.Release()
			if base.t.mem > membudget.Floor && !base.res.Grow(base.t.mem) {
				if !base.rc.pc.AllowDiskUse {
					return budgetError("$group", base.res.Budget())
				}
				f.next++
				return f.stopLocked()
			}
		}
		f.next++
	}
	return nil
}

// stop ends folding before a worker spills its table: the finished
// tables are spilled as their ranges' runs.
func (f *tableFolder) stop() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopLocked()
}

func (f *tableFolder) stopLocked() error {
	if f.stopped {
		return nil
	}
	f.stopped = true
	for i, done := range f.finished {
		if done {
			if err := f.spill(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// spill writes range i's finished table as a run of its range, if it
// holds any group.
func (f *tableFolder) spill(i int) error {
	t := f.workers[i].t
	if len(t.order) == 0 {
		return nil
	}
	mem := t.mem
	if err := f.g.spillTable(t, f.sps[i]); err != nil {
		return err
	}
	f.total.Add(-mem)
	f.workers[i].res.Release()
	return nil
}

// release returns the budget reservations the tables still hold (when
// the parallel $group has merged them or failed).
func (f *tableFolder) release() {
	for _, w := range f.workers {
		if w != nil {
			w.res.Release()
		}
	}
}

// foldTable folds t into base, in t's order of first appearance, and
// empties t: a group new to base moves over, one already there merges
// t's partial state into base's. It returns the change in the two
// tables' memory together (a merged group's own memory is freed, its
// base group's accumulators may grow).
// accMerger is an accumulator that merges another of its kind directly
// (accum's sumAcc), without a partial document.
type accMerger interface {
	MergeAcc(o accum.Accumulator) bool
}

func (g *groupStage) foldTable(base, t *groupTable) (int64, error) {
	var delta int64
	for i, gr := range t.order {
		ks := t.keys[i]
		b := base.groups[ks]
		if b == nil {
			base.groups[ks] = gr
			base.order = append(base.order, gr)
			base.keys = append(base.keys, ks)
			continue
		}
		delta -= int64(len(ks)+len(gr.key.Data)) + groupOverhead
		for j, a := range gr.accs {
			before := b.accs[j].MemUsage()
			if m, ok := b.accs[j].(accMerger); !ok || !m.MergeAcc(a) {
				ps, err := a.Partial()
				if err != nil {
					return 0, err
				}
				if err := b.accs[j].Merge(ps); err != nil {
					return 0, err
				}
			}
			delta += int64(b.accs[j].MemUsage()-before) - int64(a.MemUsage())
		}
		t.order[i] = nil
	}
	base.mem += t.mem + delta
	t.order, t.keys, t.groups, t.mem = nil, nil, map[string]*group{}, 0
	return delta, nil
}
