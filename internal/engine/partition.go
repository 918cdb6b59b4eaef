package engine

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// MinPartitionDocs is the smallest collection whose scans FindPartitions
// splits: below it one goroutine finishes before others would start.
const MinPartitionDocs = 20_000

// MinPartitionBytes is the data size from which a collection of fewer
// documents is split all the same (large documents: a time series
// collection's buckets).
const MinPartitionBytes = 8 << 20

// PartitionIter is one part of a partitioned scan. Next returns (nil,
// nil) at the end; a document is valid only until the next call.
type PartitionIter interface {
	Next() (bsoncore.Document, error)
	Close() error
}

// FindPartitions splits a query that the planner answers with a plain
// collection scan (no sort, skip, limit or projection) into up to n scans
// of consecutive record-id ranges over one snapshot, so that n goroutines
// can each read one. The parts, read in order, give the documents in
// natural order. It returns nil (and no error) when the query is not
// such a scan, the collection is small, or ctx carries a transaction or
// a snapshot read.
func (e *Engine) FindPartitions(ctx context.Context, db, coll string, spec FindSpec, n int) ([]PartitionIter, error) {
	if n < 2 || len(spec.Sort) > 5 || len(spec.Projection) > 5 || spec.Skip != 0 || spec.Limit != 0 ||
		spec.Tailable || spec.ShowRecordID || spec.ReturnKey || TxnFrom(ctx) != nil || ctx.Value(readSnapKey{}) != nil {
		return nil, nil
	}
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil, nil
	}
	c.state.mu.Lock()
	small := c.state.statsValid && c.state.count < MinPartitionDocs && c.state.dataSize < MinPartitionBytes
	c.state.mu.Unlock()
	if small {
		return nil, nil
	}
	filter := spec.Filter
	if filter == nil {
		filter = emptyDoc
	}
	collator, err := queryCollator(c, spec.Collation)
	if err != nil {
		return nil, err
	}
	parse := func() (*query.Filter, error) { return query.ParseCollated(filter, nil, nil, collator) }
	f, err := parse()
	if err != nil {
		return nil, err
	}
	snap := e.db.NewSnapshot()
	r := snap.Reader()
	ok, bounds, err := e.plansCollScan(r, e.db, c, filter, f, spec.Hint)
	if err != nil || !ok {
		snap.Close()
		return nil, err
	}
	if c.Clustered {
		return e.clusteredPartitions(ctx, snap, c, bounds, f, parse, n)
	}
	splits, err := storage.SplitRecords(r, c.ID, n)
	if err != nil || splits == nil {
		snap.Close()
		return nil, err
	}
	// When an index shows that every document matches, the parts test
	// none (partition_cover.go).
	covered := rangeCovers(r, c, filter)
	if covered {
		f = nil
	}
	shared := &sharedSnapshot{close: func() { snap.Close() }}
	shared.refs.Store(int32(n))
	parts := make([]PartitionIter, 0, n)
	for i, sp := range splits {
		pf := f
		if i > 0 && !covered {
			// Each goroutine gets its own parsed filter.
			if pf, err = parse(); err != nil {
				for _, p := range parts {
					p.Close()
				}
				for j := i; j < n; j++ {
					shared.release()
				}
				return nil, err
			}
		}
		parts = append(parts, &rangeScan{ctx: ctx, r: r, collID: c.ID, lo: sp.Lo, hi: sp.Hi, filter: pf, snap: shared})
	}
	return parts, nil
}

// plansCollScan reports whether the planner's choice for filter on c is a
// collection scan, and for a clustered collection its bounds on the
// cluster key (nil: none).
func (e *Engine) plansCollScan(r storage.Reader, db *storage.DB, c *collection, filterDoc bsoncore.Document, f *query.Filter, hint bsoncore.Value) (bool, []plan.FieldBounds, error) {
	bp, err := e.buildPlan(r, c, planReq{filterDoc: filterDoc, filter: f, hint: normHint(hint), preferCollScan: true, db: db})
	if err != nil {
		return false, nil, err
	}
	defer bp.close()
	if bp.sol == nil || bp.sol.Root == nil || bp.sol.Root.Stage != plan.StageCollScan || bp.sol.Root.KeyRange != nil {
		return false, nil, nil
	}
	return true, bp.sol.Root.ClusterBounds, nil
}

// clusteredPartitions is FindPartitions for clustered collection c: the
// key range its bounded scan reads, split into up to n consecutive
// ranges (storage.SplitClustered), each read by its own cursor over snap
// and filtered.
func (e *Engine) clusteredPartitions(ctx context.Context, snap *storage.Snapshot, c *collection, bounds []plan.FieldBounds,
	f *query.Filter, parse func() (*query.Filter, error), n int) ([]PartitionIter, error) {
	r := snap.Reader()
	lo, hi := exec.ClusterKeyRange(bounds)
	splits, err := storage.SplitClustered(r, c.ID, lo, hi, n)
	if err != nil || splits == nil {
		snap.Close()
		return nil, err
	}
	shared := &sharedSnapshot{close: func() { snap.Close() }}
	shared.refs.Store(int32(len(splits)))
	parts := make([]PartitionIter, 0, len(splits))
	for i, sp := range splits {
		pf := f
		if i > 0 {
			if pf, err = parse(); err != nil {
				for _, p := range parts {
					p.Close()
				}
				for j := i; j < len(splits); j++ {
					shared.release()
				}
				return nil, err
			}
		}
		parts = append(parts, &rangeScan{ctx: ctx, r: r, collID: c.ID, clustered: true, klo: sp[0], khi: sp[1], filter: pf, snap: shared})
	}
	return parts, nil
}

// sharedSnapshot closes a snapshot when the last of its users releases
// it.
type sharedSnapshot struct {
	refs  atomic.Int32
	close func()
}

func (s *sharedSnapshot) release() {
	if s.refs.Add(-1) == 0 {
		s.close()
	}
}

// rangeScan reads the records [lo, hi) of a collection in record order
// and returns those that match filter.
type rangeScan struct {
	ctx    context.Context
	r      storage.Reader
	collID uint64
	lo, hi storage.RecordID
	// clustered: the records of a clustered collection with cluster keys
	// in [klo, khi) (nil: unbounded) instead.
	clustered bool
	klo, khi  []byte
	filter    *query.Filter // nil: every document matches
	snap      *sharedSnapshot
	it        *storage.RecordCursor
	n         int
	done      bool
}

// Next implements PartitionIter.
func (s *rangeScan) Next() (bsoncore.Document, error) {
	if s.done {
		return nil, nil
	}
	if s.it == nil {
		var it *storage.RecordCursor
		var err error
		if s.clustered {
			it = &storage.RecordCursor{}
			err = it.OpenClustered(s.r, s.collID, s.klo, s.khi, false)
		} else {
			it, err = storage.NewRecordRangeCursor(s.r, s.collID, s.lo, s.hi)
		}
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("partition: %w", err)
		}
		s.it = it
	}
	for {
		_, v, ok := s.it.Next()
		if !ok {
			break
		}
		s.n++
		if s.n&1023 == 0 {
			if err := s.ctx.Err(); err != nil {
				s.Close()
				return nil, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
		}
		if s.filter == nil {
			return v, nil
		}
		matched, _, err := s.filter.MatchChecked(v)
		if err != nil {
			s.Close()
			return nil, err // a $expr failed: the aggregation fails
		}
		if matched {
			return v, nil
		}
	}
	err := s.it.Err()
	s.Close()
	return nil, err
}

// Close implements PartitionIter.
func (s *rangeScan) Close() error {
	if s.done {
		return nil
	}
	s.done = true
	if s.it != nil {
		s.it.Close()
		s.it = nil
	}
	s.snap.release()
	return nil
}
