package engine

import (
	"slices"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query/plan"
)

// Index filters, as mongod's planCacheSetFilter sets them: for the
// queries of one shape (query, sort and projection, selected as
// planCacheClear selects entries) the planner considers only the listed
// indexes, hints ignored. They live in memory with the collection's state
// (a restart, a drop or a rename forgets them).

// indexFilter is one shape's filter.
type indexFilter struct {
	query, sort, proj bsoncore.Document
	// indexes are names (strings) or key patterns (documents).
	indexes []bsoncore.Value
}

// indexFilters are one collection's filters (in collState).
type indexFilters struct {
	mu sync.Mutex
	m  map[uint64]*indexFilter
	// n is len(m), read without mu by every plan.
	n atomic.Int32
}

func (f *indexFilters) get(shape uint64) *indexFilter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[shape]
}

// allows reports whether ix is one of the filter's indexes.
func (f *indexFilter) allows(ix *plan.Index) bool {
	for _, v := range f.indexes {
		if s, ok := v.StringValueOK(); ok {
			if s == ix.Name {
				return true
			}
		} else if d, ok := v.DocumentOK(); ok && sameKeyPattern(d, ix.KeyPattern) {
			return true
		}
	}
	return false
}

// sameKeyPattern compares key patterns by field and direction or type
// (numbers of any BSON type compare by value).
func sameKeyPattern(a, b bsoncore.Document) bool {
	ae, err1 := a.Elements()
	be, err2 := b.Elements()
	if err1 != nil || err2 != nil || len(ae) != len(be) {
		return false
	}
	for i := range ae {
		if ae[i].Key() != be[i].Key() {
			return false
		}
		av, bv := ae[i].Value(), be[i].Value()
		af, aok := av.AsFloat64OK()
		bf, bok := bv.AsFloat64OK()
		switch {
		case aok && bok:
			if af != bf {
				return false
			}
		case aok != bok:
			return false
		default:
			as, _ := av.StringValueOK()
			bs, _ := bv.StringValueOK()
			if as != bs {
				return false
			}
		}
	}
	return true
}

// filterIndexes applies q's index filter, if its collection has one for
// q's shape, to pix. It reports whether a filter applied.
func filterIndexes(c *collection, q *planReq, pix []*plan.Index) ([]*plan.Index, bool) {
	fs := &c.state.filters
	if fs.n.Load() == 0 || q.records != nil {
		return pix, false
	}
	f := fs.get(clearShape(q.filterDoc, q.sortDoc, q.opts.ProjectionDoc))
	if f == nil {
		return pix, false
	}
	out := pix[:0:0]
	for _, ix := range pix {
		if f.allows(ix) {
			out = append(out, ix)
		}
	}
	return out, true
}

// SetIndexFilter sets the index filter of a query shape of db.coll
// (planCacheSetFilter) and removes the shape's plan cache entries.
func (e *Engine) SetIndexFilter(db, coll string, query, sortDoc, proj bsoncore.Document, indexes []bsoncore.Value) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return errs.New(errs.BadValue, "no such collection")
	}
	f := &indexFilter{query: cloneDoc(query), sort: cloneDoc(sortDoc), proj: cloneDoc(proj)}
	for _, v := range indexes {
		f.indexes = append(f.indexes, bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)})
	}
	shape := clearShape(query, sortDoc, proj)
	fs := &c.state.filters
	fs.mu.Lock()
	if fs.m == nil {
		fs.m = make(map[uint64]*indexFilter)
	}
	fs.m[shape] = f
	fs.n.Store(int32(len(fs.m)))
	fs.mu.Unlock()
	c.state.plans.clear(func(en *planCacheEntry) bool { return en.qshape == shape })
	return nil
}

// ClearIndexFilters removes db.coll's index filters, or the one of a
// query shape when query is set (planCacheClearFilters), with the plan
// cache entries they shaped.
func (e *Engine) ClearIndexFilters(db, coll string, query, sortDoc, proj bsoncore.Document) error {
	if err := e.checkOpen(); err != nil {
		return err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil
	}
	fs := &c.state.filters
	fs.mu.Lock()
	var gone []uint64
	if query == nil {
		for k := range fs.m {
			gone = append(gone, k)
		}
		fs.m = nil
	} else {
		shape := clearShape(query, sortDoc, proj)
		if _, ok := fs.m[shape]; ok {
			delete(fs.m, shape)
			gone = append(gone, shape)
		}
	}
	fs.n.Store(int32(len(fs.m)))
	fs.mu.Unlock()
	c.state.plans.clear(func(en *planCacheEntry) bool { return slices.Contains(gone, en.qshape) })
	return nil
}

// ListIndexFilters returns db.coll's index filters as
// planCacheListFilters shows them: {query, sort, projection, indexes}.
func (e *Engine) ListIndexFilters(db, coll string) ([]bsoncore.Document, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return nil, nil
	}
	fs := &c.state.filters
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]bsoncore.Document, 0, len(fs.m))
	for _, f := range fs.m {
		ixs := bsoncore.NewArrayBuilder()
		for _, v := range f.indexes {
			ixs.AppendValue(v)
		}
		out = append(out, bsoncore.NewDocumentBuilder().
			AppendDocument("query", orEmpty(f.query)).
			AppendDocument("sort", orEmpty(f.sort)).
			AppendDocument("projection", orEmpty(f.proj)).
			AppendArray("indexes", ixs.Build()).Build())
	}
	return out, nil
}
