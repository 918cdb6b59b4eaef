package agg

import (
	"context"
	"github.com/lodedb/lode/internal/procs"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"runtime"
	"sync"
	"sync/atomic"
)

// A $group that reads a collection scan directly (nothing between them
// but stages folded into it) runs on every core: the catalog splits the
// scan into consecutive record ranges (Partitioner), a few per core
// (partsPerCore), each grouped into its own table by one of a goroutine
// per core, which take the ranges in order as they finish the last (so
// a core that falls behind, busy with other work, leaves its share to
// the others rather than keeping them waiting at the end); the tables
// are merged: in memory,
// in range order, each group's accumulators folding in the later
// ranges' partial states (so the groups come out in order of first
// appearance and $first/$last/$push see natural order); or, when memory
// ran out and tables were spilled, through the spill merge, each worker's
// runs in range order. The memory limit counts all tables together.

// partsPerCore is how many record ranges a parallel $group splits its
// scan into per core. Ranges of consecutive records also keep each
// table smaller when the group keys follow the record order (events by
// time, grouped by day).
const partsPerCore = 4

// parallelGroup returns the output of the pipeline's first stages when
// they can run as a parallel $group: the index of the first stage not
// consumed and true, or false to run the pipeline as usual.
func (p *Pipeline) parallelGroup(rc *runCtx) (Iterator, int, bool, error) {
	if p.push == nil {
		return nil, 0, false, nil
	}
	procs.Parallel() // a lone client's server may run on one processor
	if runtime.GOMAXPROCS(0) < 2 {
		return nil, 0, false, nil
	}
	gi := -1
	var unpack *unpackStage // unpackbucket_parallel.go
	for i, s := range p.stages {
		if u, ok := s.(*unpackStage); ok && i == 0 {
			unpack = u
			continue
		}
		if g, ok := s.(*groupStage); ok {
			if g.keyFn == nil {
				gi = i
			}
			break
		}
		if !passesThrough(s) && (unpack == nil || !perPart(s)) {
			break
		}
	}
	if gi < 0 {
		return nil, 0, false, nil
	}
	var parts []Iterator
	var err error
	if unpack != nil {
		parts, err = unpack.parts(rc, p, bucketPartsPerCore*runtime.GOMAXPROCS(0), p.stages[1:gi])
	} else if part, ok := rc.cat.(Partitioner); ok {
		parts, err = part.FindPartitions(rc.ctx, p.pc.DB, p.pc.Coll, *p.push, partsPerCore*runtime.GOMAXPROCS(0))
	}
	if err != nil || len(parts) < 2 {
		for _, it := range parts {
			it.Close()
		}
		return nil, 0, false, err
	}
	g := p.stages[gi].(*groupStage)
	p.pc.params().Stats.ParallelGroups.Add(1)
	return g.openParts(rc, parts), gi + 1, true, nil
}

// passesThrough reports whether s returns its input unchanged (a stage
// folded into the $group after it).
func passesThrough(s stage) bool {
	switch s := s.(type) {
	case *projectStage:
		return s.passThrough
	case *addFieldsStage:
		return s.passThrough
	}
	return false
}

// openParts groups parts in parallel when first read.
func (g *groupStage) openParts(rc *runCtx, parts []Iterator) Iterator {
	var out Iterator
	started := false
	var sps []*spiller
	closeAll := func() error {
		for _, sp := range sps {
			sp.close()
		}
		for _, it := range parts {
			it.Close()
		}
		return nil
	}
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if !started {
				started = true
				var err error
				if out, sps, err = g.consumeParts(rc, parts); err != nil {
					return nil, err
				}
			}
			return out.Next()
		},
		close: closeAll,
	}
}

// consumeParts groups every part, a goroutine per core taking the parts
// in order. The workers' context is cancelled when one fails, so that
// the others stop, and when they are done. It is derived from the
// context in force now (commandContext), not from a cursor's
// SwitchContext, whose command changes with each getMore.
func (g *groupStage) consumeParts(rc *runCtx, parts []Iterator) (Iterator, []*spiller, error) {
	ctx, cancel := context.WithCancel(commandContext(rc.ctx))
	defer cancel()
	var total atomic.Int64
	wrc := *rc
	wrc.ctx = ctx
	workers := make([]*groupWorker, len(parts))
	sps := make([]*spiller, len(parts))
	fold := newTableFolder(g, workers, sps, &total)
	defer fold.release()
	for i := range parts {
		sps[i] = rc.pc.newSpiller()
		workers[i] = g.newWorker(&wrc, rc.vars.Clone(), sps[i], &total)
		workers[i].fold = fold
	}
	errs := make([]error, len(parts))
	var first atomic.Int32
	first.Store(-1)
	// Each goroutine takes the next range until none is left or one
	// failed (the others then stop at their next document, their context
	// cancelled, or before their next range).
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(parts) || first.Load() >= 0 {
					return
				}
				err := workers[i].run(parts[i])
				if err == nil {
					err = fold.finish(i)
				}
				if err != nil {
					errs[i] = err
					if first.CompareAndSwap(-1, int32(i)) {
						cancel()
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	if i := first.Load(); i >= 0 {
		return nil, sps, errs[i]
	}
	spilled := false
	for _, sp := range sps {
		spilled = spilled || len(sp.runs) > 0
	}
	if !spilled {
		t, err := g.mergeTables(workers)
		if err != nil {
			return nil, sps, err
		}
		return t.iter(g), sps, nil
	}
	// Spill what is left and merge every run, worker by worker.
	all := rc.pc.newSpiller()
	for i, w := range workers {
		if len(w.t.order) > 0 {
			if err := g.spillTable(w.t, sps[i]); err != nil {
				return nil, sps, err
			}
		}
		all.runs = append(all.runs, sps[i].runs...)
		sps[i].runs = nil
	}
	sps = append(sps, all)
	return g.mergeRuns(rc, all, nil), sps, nil
}

// mergeTables folds the tables of workers 1.. into worker 0's (those
// the folder has not folded yet; the others are empty).
func (g *groupStage) mergeTables(workers []*groupWorker) (*groupTable, error) {
	base := workers[0].t
	for _, w := range workers[1:] {
		if _, err := g.foldTable(base, w.t); err != nil {
			return nil, err
		}
	}
	return base, nil
}

// commandContext returns the context of the command running now when ctx
// is a cursor's (cursor.SwitchContext, which follows the command that
// drives the cursor), else ctx. A context derived from a SwitchContext
// would wait for the Done channel of the command current when it was
// made, then ask the SwitchContext, by then perhaps a getMore's, why it
// ended, and the context package panics at a nil answer.
func commandContext(ctx context.Context) context.Context {
	if s, ok := ctx.(interface{ Current() context.Context }); ok {
		return s.Current()
	}
	return ctx
}
