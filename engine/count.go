package engine

import (
	"context"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/bsonutil"
	"github.com/lodedb/lode/query"
)

// Count counts the documents of db.coll matching filter, after skip and
// limit (0 = none; a negative limit counts as its absolute value).
func (e *Engine) Count(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value) (int64, error) {
	if err := e.checkOpen(); err != nil {
		return 0, err
	}
	if filter == nil {
		filter = emptyDoc
	}
	f, err := query.Parse(filter)
	if err != nil {
		return 0, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return 0, nil
	}
	if limit < 0 {
		limit = -limit
	}
	snap := e.db.NewSnapshot()
	defer snap.Close()
	var n int64
	empty := len(filter) <= 5
	err = scanMatchesCtx(ctx, snap, c, filter, f, empty, func() bool {
		n++
		return limit == 0 || n < skip+limit
	})
	if err != nil {
		return 0, err
	}
	n -= skip
	if n < 0 {
		n = 0
	}
	if limit > 0 && n > limit {
		n = limit
	}
	return n, nil
}

// scanMatchesCtx calls fn for every match of f in c (without copying
// documents) until fn returns false. matchAll skips filter evaluation.
func scanMatchesCtx(ctx context.Context, r storageReader, c *collection, filterDoc bsoncore.Document, f *query.Filter, matchAll bool, fn func() bool) error {
	src, err := openSource(r, c, filterDoc)
	if err != nil {
		return err
	}
	defer src.close()
	for i := 0; ; i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		_, doc, ok, err := src.next()
		if err != nil || !ok {
			return err
		}
		if !matchAll && !f.Match(doc) {
			continue
		}
		if !fn() {
			return nil
		}
	}
}

// Distinct returns the distinct values of key among the documents matching
// filter, arrays flattened one level, in MongoDB's sort order.
func (e *Engine) Distinct(ctx context.Context, db, coll, key string, filter bsoncore.Document) ([]bsoncore.Value, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if filter == nil {
		filter = emptyDoc
	}
	f, err := query.Parse(filter)
	if err != nil {
		return nil, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return []bsoncore.Value{}, nil
	}
	parts := splitDotted(key)
	snap := e.db.NewSnapshot()
	defer snap.Close()
	var vals []bsoncore.Value
	var arrs []string
	var sl slab
	err = scanMatches(snap, c, filter, f, func(_ uint64, doc []byte, _ int) bool {
		start := len(vals)
		collectPath(doc, parts, 0, &vals, &arrs)
		arrs = arrs[:0]
		for i := start; i < len(vals); i++ {
			if vals[i].Type == bsoncore.TypeUndefined {
				// an empty array contributes nothing
				vals = append(vals[:i], vals[i+1:]...)
				i--
				continue
			}
			vals[i] = bsoncore.Value{Type: vals[i].Type, Data: sl.copy(vals[i].Data)}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(vals, func(i, j int) bool { return bsonutil.Compare(vals[i], vals[j]) < 0 })
	out := vals[:0]
	for i, v := range vals {
		if i == 0 || bsonutil.Compare(v, out[len(out)-1]) != 0 {
			out = append(out, v)
		}
	}
	return out, nil
}
