package agg

import (
	"sync"
	"sync/atomic"
)

// tableFolder folds the tables of a parallel $group's ranges into the
// first range's table as they finish, in range order, while the other
// ranges are still being grouped: memory holds the groups met so far
// once, plus the tables of the ranges in flight, rather than every
// range's table until the end (where little is then left to merge).
// Folding stops for good once any range has spilled: the spill merge
// then needs each range's runs in range order, and the first table,
// holding the ranges folded so far, is spilled as the first range's.
type tableFolder struct {
	mu       sync.Mutex
	finished []bool
	next     int  // the ranges before next are in the first table
	stopped  bool // a range spilled: no more folding
	// spilled is set by a worker before it spills its table.
	spilled atomic.Bool
}

func newTableFolder(n int) *tableFolder {
	return &tableFolder{finished: make([]bool, n)}
}

// finish records that range i is grouped and folds every finished range
// that follows the folded ones. total is the memory count of all tables.
func (f *tableFolder) finish(g *groupStage, workers []*groupWorker, i int, total *atomic.Int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished[i] = true
	for f.next < len(workers) && f.finished[f.next] {
		if f.next > 0 {
			if f.stopped = f.stopped || f.spilled.Load(); f.stopped {
				return nil
			}
			delta, err := g.foldTable(workers[0].t, workers[f.next].t)
			if err != nil {
				return err
			}
			total.Add(delta)
		}
		f.next++
	}
	return nil
}

// foldTable folds t into base, in t's order of first appearance, and
// empties t: a group new to base moves over, one already there merges
// t's partial state into base's. It returns the change in the two
// tables' memory together (a merged group's own memory is freed, its
// base group's accumulators may grow).
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
			ps, err := a.Partial()
			if err != nil {
				return 0, err
			}
			before := b.accs[j].MemUsage()
			if err := b.accs[j].Merge(ps); err != nil {
				return 0, err
			}
			delta += int64(b.accs[j].MemUsage()-before) - int64(a.MemUsage())
		}
		t.order[i] = nil
	}
	base.mem += t.mem + delta
	t.order, t.keys, t.groups, t.mem = nil, nil, nil, 0
	return delta, nil
}
