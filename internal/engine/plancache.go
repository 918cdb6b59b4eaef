package engine

import (
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/queryshape"
)

// The plan cache, as mongod's: per collection, the winning plan of each
// query shape that had several candidates. The first trial of a shape
// leaves an inactive entry with the winner's works; a later trial whose
// winner needs no more works activates it (else the entry's works
// double). An active entry's plan runs alone for up to
// planCacheEvictionRatio times its works; if it has produced neither a
// batch nor its end by then, the entry is evicted and the trial replans.
// What an entry keeps is the winner's structure (its indexes and stages),
// matched among the new candidates, so a cached choice never changes a
// result: every candidate answers the query.
//
// Entries hold the index descriptors they were planned over; a snapshot
// with other indexes (created, dropped, hidden, changed) neither uses
// nor keeps them. Drop and rename give the collection a new state, and
// so an empty cache. Explain neither reads nor writes the cache.
const (
	// planCacheEvictionRatio is internalQueryCacheEvictionRatio.
	planCacheEvictionRatio = 10
	// planCacheMaxEntries bounds each collection's cache; the least
	// recently used entry goes first.
	planCacheMaxEntries = 1000
)

// planCacheSeed makes the instance's shape hashes (read-only).
var planCacheSeed = maphash.MakeSeed()

// planCache is one collection's plan cache (in collState).
type planCache struct {
	mu      sync.Mutex
	indexes []*index
	entries map[uint64]*planCacheEntry
	tick    uint64
	// hits counts the plans built from an entry (tests and benchmarks).
	hits atomic.Int64
}

// planCacheEntry is one query shape's cached plan.
type planCacheEntry struct {
	shape   uint64
	key     uint32
	sig     uint64
	works   int64
	active  bool
	created time.Time
	used    uint64
	// createdFromQuery and the plan's summary, for $planCacheStats.
	filter, sort, proj bsoncore.Document
	summary            string
	scores             []float64
	// sol is the winning solution (for cachedPlan); qshape the hash that
	// planCacheClear's query, sort and projection select it by.
	sol       *plan.Solution
	qshape    uint64
	filterSet bool
}

// planShape hashes what a plan choice can depend on, values left out:
// the filter's structure, the sort, the projection, the collation and
// the kind of read. It reports false for queries the cache skips.
func planShape(q *planReq) (uint64, bool) {
	if q.timing || q.hint.Type != 0 || q.records != nil {
		return 0, false
	}
	return planShapeOf(q), true
}

// planShapeOf is planShape for any query (explain shows it too).
func planShapeOf(q *planReq) uint64 {
	var h maphash.Hash
	h.SetSeed(planCacheSeed)
	writeFilterShape(&h, q.filterDoc)
	h.WriteByte(1)
	if q.sort != nil {
		h.WriteByte('s')
		h.Write(q.sortDoc)
	}
	h.WriteByte(2)
	queryshape.WriteStructure(&h, q.opts.ProjectionDoc)
	if c := q.filter.Collator(); c != nil {
		fmt.Fprintf(&h, "%v", *c.Spec())
	}
	var flags byte
	for i, b := range []bool{q.covered, q.opts.Count, q.opts.Keys, q.opts.Limit > 0} {
		if b {
			flags |= 1 << i
		}
	}
	h.WriteByte(flags)
	h.WriteString(q.distinctKey)
	h.WriteByte(byte(q.naturalDir + 1))
	return h.Sum64()
}

// queryHashOf renders a shape hash as mongod's queryHash.
func queryHashOf(shape uint64) string { return fmt.Sprintf("%08X", uint32(shape>>32)) }

// planCacheKeyOf is the shape hashed with the indexes the planner sees.
func planCacheKeyOf(shape uint64, ixs []*index) uint32 {
	var h maphash.Hash
	h.SetSeed(planCacheSeed)
	var b [8]byte
	for i := range b {
		b[i] = byte(shape >> (8 * i))
	}
	h.Write(b[:])
	for _, ix := range ixs {
		if ix.Hidden {
			continue
		}
		h.WriteString(ix.Name)
		h.WriteByte(0)
		h.Write(ix.Key)
	}
	return uint32(h.Sum64())
}

// solutionSig identifies a solution's structure: its stages, indexes
// and directions, not its bounds.
func solutionSig(s *plan.Solution) uint64 {
	var h maphash.Hash
	h.SetSeed(planCacheSeed)
	var walk func(n *plan.Node)
	walk = func(n *plan.Node) {
		h.WriteString(n.Stage)
		if n.Index != nil {
			h.WriteString(n.Index.Name)
		}
		h.WriteByte(byte(n.Direction + 2))
		h.WriteByte(byte(len(n.Children)))
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(s.Root)
	if s.BlockingSort {
		h.WriteByte('S')
	}
	if s.CoveredProjection {
		h.WriteByte('P')
	}
	return h.Sum64()
}

// lookup returns the active entry of shape planned over ixs: its
// solution signature and works.
func (pc *planCache) lookup(ixs []*index, shape uint64) (en planCacheEntry, ok bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if !slices.Equal(pc.indexes, ixs) {
		return en, false
	}
	e := pc.entries[shape]
	if e == nil || !e.active {
		return en, false
	}
	pc.tick++
	e.used = pc.tick
	return *e, true
}

// evict removes shape's entry (its cached plan exceeded its works).
func (pc *planCache) evict(ixs []*index, shape uint64) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if slices.Equal(pc.indexes, ixs) {
		delete(pc.entries, shape)
	}
}

// record notes a trial's winner for shape, planned over ixs.
func (pc *planCache) record(ixs []*index, shape uint64, sol *plan.Solution, works int64, q *planReq, scores []float64) {
	if works < 1 {
		works = 1
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if !slices.Equal(pc.indexes, ixs) {
		pc.indexes = ixs
		pc.entries = nil
	}
	if pc.entries == nil {
		pc.entries = make(map[uint64]*planCacheEntry)
	}
	pc.tick++
	en := pc.entries[shape]
	switch {
	case en == nil:
		if len(pc.entries) >= planCacheMaxEntries {
			pc.evictOldest()
		}
	case !en.active && works > en.works:
		en.works *= 2 // internalQueryCacheWorksGrowthCoefficient
		en.used = pc.tick
		return
	case en.active && works > en.works:
		en.used = pc.tick
		return
	}
	n := &planCacheEntry{
		shape: shape, key: planCacheKeyOf(shape, ixs), sig: solutionSig(sol), works: works,
		active: en != nil, created: time.Now(), used: pc.tick,
		filter: cloneDoc(q.filterDoc), sort: cloneDoc(q.sortDoc), proj: cloneDoc(q.opts.ProjectionDoc),
		summary: PlanSummary(sol), scores: scores, sol: sol, filterSet: q.filterSet,
		qshape: clearShape(q.filterDoc, q.sortDoc, q.opts.ProjectionDoc),
	}
	pc.entries[shape] = n
}

func (pc *planCache) evictOldest() {
	var old *planCacheEntry
	for _, en := range pc.entries {
		if old == nil || en.used < old.used {
			old = en
		}
	}
	if old != nil {
		delete(pc.entries, old.shape)
	}
}

// clear empties the cache, or removes the entry of one shape when match
// is set.
func (pc *planCache) clear(match func(*planCacheEntry) bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if match == nil {
		pc.entries = nil
		return
	}
	for k, en := range pc.entries {
		if match(en) {
			delete(pc.entries, k)
		}
	}
}

func cloneDoc(d bsoncore.Document) bsoncore.Document {
	if len(d) == 0 {
		return nil
	}
	return append(bsoncore.Document(nil), d...)
}

// runCachedPlan runs the cached candidate alone, as mongod's cached plan
// stage: it passes when it produces a batch (exec.TrialResults) or ends
// within maxWorks.
func runCachedPlan(cand exec.Stage, maxWorks int64) bool {
	var advanced int64
	for works := int64(0); works < maxWorks; works++ {
		st, _, err := cand.Work()
		if err != nil {
			return false
		}
		switch st {
		case exec.Advanced:
			advanced++
			if advanced >= exec.TrialResults {
				return true
			}
		case exec.EOF:
			return true
		}
	}
	return false
}

// cachedPlan builds the plan of shape's active entry when one of sols
// has its structure and it passes its run alone; ok false sends the query
// to the trial (the entry evicted if the plan failed its run).
func cachedPlan(pc *planCache, ixs []*index, shape uint64, sols []*plan.Solution, env, batched exec.Env, q planReq) (*builtPlan, bool, error) {
	en, ok := pc.lookup(ixs, shape)
	sig, works := en.sig, en.works
	if !ok {
		return nil, false, nil
	}
	pick := -1
	for i, s := range sols {
		if solutionSig(s) == sig {
			pick = i
			break
		}
	}
	if pick < 0 {
		return nil, false, nil
	}
	cand, err := exec.Build(sols[pick], env, q.opts)
	if err != nil {
		return nil, false, err
	}
	passed := runCachedPlan(cand, planCacheEvictionRatio*works)
	cand.Close()
	if !passed {
		pc.evict(ixs, shape)
		return nil, false, nil
	}
	root, err := exec.Build(sols[pick], batched, q.opts)
	if err != nil {
		return nil, false, err
	}
	pc.hits.Add(1)
	return &builtPlan{root: root, sol: sols[pick], fromCache: true, keyed: true, shape: shape, key: en.key}, true, nil
}

// writeFilterShape writes a filter's structure into h: field names,
// value types and nesting, with no value (not even 0 or 1, which
// queryshape.WriteStructure keeps for projections) and, in an array, a
// type once for a run of elements of that type ($in lists of any length
// share a shape).
func writeFilterShape(h *maphash.Hash, d []byte) {
	if len(d) < 5 {
		return
	}
	rem := d[4 : len(d)-1]
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			h.WriteByte(0xff)
			return
		}
		rem = rest
		v := el.Value()
		h.WriteByte(byte(v.Type))
		h.WriteString(el.Key())
		h.WriteByte(0)
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
			writeNestedShape(h, v)
		case bsoncore.TypeString:
			if s, ok := v.StringValueOK(); ok && len(s) > 0 && s[0] == '$' {
				h.WriteString(s)
			}
		}
	}
}

// writeNestedShape writes the shape of a document or array value,
// bracketed.
func writeNestedShape(h *maphash.Hash, v bsoncore.Value) {
	if v.Type == bsoncore.TypeArray {
		h.WriteByte('[')
		writeArrayShape(h, v.Data)
		h.WriteByte(']')
		return
	}
	h.WriteByte('{')
	writeFilterShape(h, v.Data)
	h.WriteByte('}')
}

// writeArrayShape writes the types of an array's elements, one per run.
func writeArrayShape(h *maphash.Hash, a []byte) {
	if len(a) < 5 {
		return
	}
	rem := a[4 : len(a)-1]
	prev := bsoncore.Type(0)
	for len(rem) > 0 {
		el, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			h.WriteByte(0xff)
			return
		}
		rem = rest
		v := el.Value()
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
			writeNestedShape(h, v)
		default:
			if v.Type != prev {
				h.WriteByte(byte(v.Type))
			}
		}
		prev = v.Type
	}
}
