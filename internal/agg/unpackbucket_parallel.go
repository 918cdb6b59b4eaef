package agg

import (
	"runtime"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// A $group that reads $_internalUnpackBucket (nothing between them but
// stages folded into the group) runs on every core as the parallel
// $group of a collection scan does (groupparallel.go), on parts that are
// consecutive runs of the buckets: the buckets query is read once, in
// order, each part taking its share of the buckets as the first of its
// readers asks for it (and the shares before it, so no part waits on
// another's reader), and each part unpacks its own. The parts hold, in
// order, what the one bucket stream would give, so the merge in part
// order sees the measurements in the same order. The shares come from
// the collection's count of buckets (the last part takes whatever is
// left).

// bucketPartsPerCore is how many parts the buckets are split into per
// core: more than a collection scan's (partsPerCore), since a part holds
// its buckets from the time it is filled until it is grouped.
const bucketPartsPerCore = 16

// minParallelBuckets is the fewest buckets unpacked in parallel.
const minParallelBuckets = 32

// perPart reports whether a stage between the unpack and the $group may
// run on each part on its own: a $project, $addFields or $set, which
// look at one document at a time and keep no state but their variables
// (each part gets its own).
func perPart(s stage) bool {
	switch s.(type) {
	case *projectStage, *addFieldsStage:
		return true
	}
	return false
}

// parts splits the pipeline's buckets query into n consecutive parts,
// each unpacked by s and run through the stages between the unpack and
// the $group (perPart, or folded into it); nil when there are too few
// buckets or the query is not a plain read.
func (s *unpackStage) parts(rc *runCtx, p *Pipeline, n int, between []stage) ([]Iterator, error) {
	spec := p.push
	if spec == nil || spec.Skip != 0 || spec.Limit != 0 || spec.TextScore || n < 2 {
		return nil, nil
	}
	// The shares are of the collection's buckets: a query that matches
	// a fraction of them fills the first parts and leaves the others
	// empty, which the workers, taking the parts in turn, still share.
	st, err := rc.cat.Stats(rc.ctx, p.pc.DB, p.pc.Coll)
	if err != nil || st.Count < minParallelBuckets {
		return nil, nil
	}
	var out []Iterator
	// A catalog that splits the buckets' clustered scan on its key
	// (engine.FindPartitions) gives parts that each read their own range
	// of buckets, in order, on their own goroutine; the buckets' feed
	// below is for the others.
	if pt, ok := rc.cat.(Partitioner); ok {
		ps, err := pt.FindPartitions(rc.ctx, p.pc.DB, p.pc.Coll, *spec, partsPerCore*runtime.GOMAXPROCS(0))
		if err != nil {
			return nil, err
		}
		if len(ps) >= 2 {
			out = make([]Iterator, len(ps))
			for k, part := range ps {
				out[k] = &unpackIter{st: s, in: part, reuse: true}
			}
		} else {
			for _, part := range ps {
				part.Close()
			}
		}
	}
	if out == nil {
		total := st.Count
		src, err := rc.cat.Find(rc.ctx, p.pc.DB, p.pc.Coll, *spec)
		if err != nil {
			return nil, err
		}
		f := &bucketFeed{src: src, open: n}
		f.parts = make([]*bucketPart, n)
		out = make([]Iterator, n)
		for k := range f.parts {
			quota := int((int64(k+1)*total)/int64(n) - (int64(k)*total)/int64(n))
			if k == n-1 {
				quota = -1
			}
			f.parts[k] = &bucketPart{feed: f, k: k, quota: quota, st: s}
			out[k] = f.parts[k]
		}
	}
	for k := range out {
		prc := *rc
		prc.vars = rc.vars.Clone()
		for _, st := range between {
			it, err := st.open(&prc, out[k])
			if err != nil {
				for _, o := range out {
					o.Close()
				}
				return nil, err
			}
			out[k] = it
		}
	}
	return out, nil
}

// bucketFeed reads the buckets query for the parts, in order.
type bucketFeed struct {
	mu     sync.Mutex
	src    Iterator
	parts  []*bucketPart
	filled int // the parts before this one have their buckets
	err    error
	open   int // parts not closed yet
}

// fill gives the parts up to k their buckets.
func (f *bucketFeed) fill(k int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.filled <= k && f.err == nil {
		p := f.parts[f.filled]
		for p.quota < 0 || len(p.buf) < p.quota {
			d, err := f.src.Next()
			if err != nil {
				f.err = err
				return err
			}
			if d == nil {
				break
			}
			p.buf = append(p.buf, d)
		}
		f.filled++
	}
	return f.err
}

// bucketPart is one part: its buckets, unpacked.
type bucketPart struct {
	feed  *bucketFeed
	k     int
	quota int // -1: all that is left
	st    *unpackStage
	buf   []bsoncore.Document
	u     *unpackIter
	done  bool
}

func (b *bucketPart) Next() (bsoncore.Document, error) {
	if b.u == nil {
		if b.done {
			return nil, nil
		}
		if err := b.feed.fill(b.k); err != nil {
			return nil, err
		}
		b.u = &unpackIter{st: b.st, in: &sliceIter{docs: b.buf}, reuse: true}
		b.buf = nil
	}
	return b.u.Next()
}

func (b *bucketPart) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	b.u = nil
	f := b.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	b.buf = nil
	f.open--
	if f.open == 0 {
		return f.src.Close()
	}
	return nil
}
