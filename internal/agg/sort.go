package agg

import (
	"container/heap"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/membudget"
	"github.com/lodedb/lode/internal/query"
)

// The registry entry of the stage in this file (stagedef.go).
func init() {
	w := anywhere
	w.ownsTextMeta = yes
	registerStage("$sort", stageDef{parse: parseSort, access: noAccess, sources: noSources, where: w, explain: sortExplain, shape: shapeVerbatim})
}

// sortExplain appends the execution figures of $sort.
func sortExplain(b *bsoncore.DocumentBuilder, st *stageStats, inBytes int64) {
	sp := st.spill
	b.AppendInt64("totalDataSizeSortedBytesEstimate", inBytes).
		AppendBoolean("usedDisk", sp.runs > 0).
		AppendInt64("spills", sp.runs).
		AppendInt64("spilledDataStorageSize", sp.bytes)
}

// docOverhead approximates the bytes a held document costs beyond its BSON.
const docOverhead = 64

// sortStage is $sort, optionally with a coalesced $limit (top-k).
type sortStage struct {
	raw   bsoncore.Document
	sort  *query.Sort
	limit int64 // 0 = none
}

// pushStep: a $sort is the scan's sort.
func (s *sortStage) pushStep() pushStep { return pushSort }

// pushInto makes the sort, and its coalesced limit, the scan's.
func (s *sortStage) pushInto(_ *Pipeline, spec *FindSpec) (stage, bool) {
	spec.Sort = s.raw
	spec.Limit = s.limit
	return nil, true
}

// absorb takes a $limit that follows into a top-k sort (coalesce).
func (s *sortStage) absorb(next stage) bool {
	l, ok := next.(*limitStage)
	if !ok {
		return false
	}
	if s.limit == 0 || l.n < s.limit {
		s.limit = l.n
	}
	return true
}

func parseSort(v bsoncore.Value, pc *ParseContext) ([]stage, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.Location15973, "the $sort key specification must be an object")
	}
	if isEmptyDoc(v) {
		return nil, errs.New(errs.Location15976, "$sort stage must have at least one sort key")
	}
	s, err := query.ParseSort(d)
	if err != nil {
		return nil, err
	}
	if _, nat := s.Natural(); nat {
		return nil, errs.New(errs.Location17312, "$natural is not allowed in $sort")
	}
	s = s.Collated(pc.Collator)
	return []stage{&sortStage{raw: d, sort: s}}, nil
}

func (s *sortStage) name() string { return "$sort" }

func (s *sortStage) spec() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendDocument("sortKey", s.raw)
	if s.limit > 0 {
		b.AppendInt64("limit", s.limit)
	}
	return bsoncore.NewDocumentBuilder().AppendDocument("$sort", b.Build()).Build()
}

// sortItem is a held document with its sort key.
type sortItem struct {
	key query.SortKey
	doc bsoncore.Document
	seq int64
}

// memoryError is the 292 error of a blocking stage.
func memoryError(stageName string, limit int64) error {
	if stageName == "$sort" {
		return errs.New(errs.QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit of %d bytes, but did not opt in to external sorting. Aborting operation. Pass allowDiskUse:true to opt in.", limit)
	}
	return errs.New(errs.QueryExceededMemoryLimitNoDiskUseAllowed, "Exceeded memory limit for %s, but didn't allow external spilling; pass allowDiskUse:true to opt in.", stageName)
}

// budgetError is the error of a stage the instance's memory budget b
// stopped without allowDiskUse (QueryExceededMemoryLimitNoDiskUseAllowed,
// as for its own limit).
func budgetError(stageName string, b *membudget.Budget) error {
	return errs.New(errs.QueryExceededMemoryLimitNoDiskUseAllowed, "%s exceeded the server's memory budget (%d bytes in use of %d), but did not opt in to external sorting or spilling; pass allowDiskUse:true to opt in.", stageName, b.Used(), b.Limit())
}

// releaseIter releases a budget reservation when its iterator closes.
type releaseIter struct {
	Iterator
	res *membudget.Reservation
}

func (r *releaseIter) Close() error {
	r.res.Release()
	return r.Iterator.Close()
}

func (s *sortStage) open(rc *runCtx, in Iterator) (Iterator, error) {
	var out Iterator
	started := false
	sp := rc.newSpiller()
	closeAll := func() error {
		sp.close()
		if out != nil {
			out.Close()
		}
		return in.Close()
	}
	return &funcIter{
		next: func() (bsoncore.Document, error) {
			if !started {
				started = true
				var err error
				if s.limit > 0 {
					out, err = s.topK(rc, in)
				} else {
					out, err = s.full(rc, in, sp)
				}
				if err != nil {
					return nil, err
				}
			}
			return out.Next()
		},
		close: closeAll,
	}, nil
}

// full sorts the whole input, spilling sorted runs when over the limit.
func (s *sortStage) full(rc *runCtx, in Iterator, sp *spiller) (Iterator, error) {
	limit := rc.pc.memLimit()
	var items []sortItem
	var mem int64
	var seq int64
	// The buffer's share of the instance's memory budget, held until the
	// sorted output is closed.
	reservation := membudget.For(rc.pc.budget())
	res := &reservation
	kept := false
	defer func() {
		if !kept {
			res.Release()
		}
	}()
	flush := func() error {
		s.sortItems(items)
		recs := make([][]byte, len(items))
		for i, it := range items {
			recs[i] = it.doc
		}
		items, mem = items[:0], 0
		res.Release()
		return sp.writeRun(recs)
	}
	for {
		d, err := nextChecked(rc.ctx, in, seq)
		if err != nil {
			return nil, err
		}
		if d == nil {
			break
		}
		items = append(items, sortItem{key: s.sort.Key(d), doc: d, seq: seq})
		seq++
		mem += int64(len(d)) + docOverhead
		if over := mem > limit; over || mem > membudget.Floor && !res.Grow(mem) {
			if !rc.pc.AllowDiskUse {
				if !over {
					return nil, budgetError("$sort", res.Budget())
				}
				return nil, memoryError("$sort", limit)
			}
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	s.sortItems(items)
	if len(sp.runs) == 0 {
		docs := make([]bsoncore.Document, len(items))
		for i, it := range items {
			docs[i] = it.doc
		}
		kept = true
		return &releaseIter{Iterator: &sliceIter{docs: docs}, res: res}, nil
	}
	mem2 := make([][]byte, len(items))
	for i, it := range items {
		mem2[i] = it.doc
	}
	m, err := sp.merge(mem2, func(a, b []byte) int { return s.sort.Compare(a, b) })
	if err != nil {
		return nil, err
	}
	return &funcIter{next: func() (bsoncore.Document, error) {
		r, err := m.next()
		if r == nil || err != nil {
			return nil, err
		}
		return r, nil
	}}, nil
}

func (s *sortStage) sortItems(items []sortItem) {
	sort.SliceStable(items, func(i, j int) bool { return s.sort.CompareKeys(items[i].key, items[j].key) < 0 })
}

// topHeap is a max-heap of the k best items so far.
type topHeap struct {
	items []sortItem
	s     *query.Sort
}

func (h *topHeap) Len() int { return len(h.items) }
func (h *topHeap) Less(i, j int) bool {
	c := h.s.CompareKeys(h.items[i].key, h.items[j].key)
	if c != 0 {
		return c > 0
	}
	return h.items[i].seq > h.items[j].seq
}
func (h *topHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *topHeap) Push(x any)    { h.items = append(h.items, x.(sortItem)) }
func (h *topHeap) Pop() any {
	n := len(h.items)
	x := h.items[n-1]
	h.items = h.items[:n-1]
	return x
}

// topK keeps only the best limit documents.
func (s *sortStage) topK(rc *runCtx, in Iterator) (Iterator, error) {
	limit := rc.pc.memLimit()
	h := &topHeap{s: s.sort}
	var mem, seq int64
	for {
		d, err := nextChecked(rc.ctx, in, seq)
		if err != nil {
			return nil, err
		}
		if d == nil {
			break
		}
		it := sortItem{key: s.sort.Key(d), doc: d, seq: seq}
		seq++
		if int64(h.Len()) < s.limit {
			heap.Push(h, it)
			mem += int64(len(d)) + docOverhead
		} else if s.sort.CompareKeys(it.key, h.items[0].key) < 0 {
			mem += int64(len(d)) - int64(len(h.items[0].doc))
			h.items[0] = it
			heap.Fix(h, 0)
		}
		if mem > limit && !rc.pc.AllowDiskUse {
			return nil, memoryError("$sort", limit)
		}
	}
	items := h.items
	sort.SliceStable(items, func(i, j int) bool {
		c := s.sort.CompareKeys(items[i].key, items[j].key)
		if c != 0 {
			return c < 0
		}
		return items[i].seq < items[j].seq
	})
	docs := make([]bsoncore.Document, len(items))
	for i, it := range items {
		docs[i] = it.doc
	}
	return &sliceIter{docs: docs}, nil
}
