package engine

import (
	"context"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/keystring"
	"github.com/lodedb/lode/internal/opstats"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/storage"
)

// Count counts the documents of db.coll matching filter, after skip and
// limit (0 = none; a negative limit counts as its absolute value). When the
// index keys answer the filter the count reads no documents (COUNT_SCAN,
// or COUNT over IXSCAN).
func (e *Engine) Count(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value) (int64, error) {
	return e.CountCollated(ctx, db, coll, filter, skip, limit, hint, nil)
}

// CountCollated is Count under a collation document (nil: the
// collection's default).
func (e *Engine) CountCollated(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value, collationDoc bsoncore.Document) (int64, error) {
	if err := e.checkOpen(); err != nil {
		return 0, err
	}
	if filter == nil {
		filter = emptyDoc
	}
	collator, err := e.statementCollator(db, coll, collationDoc)
	if err != nil {
		return 0, err
	}
	_, f, err := parseFilter(ctx, filter, nil, collator)
	if err != nil {
		return 0, err
	}
	c, records, err := e.readColl(ctx, db, coll, f)
	if err != nil || c == nil {
		return 0, err
	}
	if limit < 0 {
		limit = -limit
	}
	if len(filter) <= 5 && hint.Type == 0 && TxnFrom(ctx) == nil {
		// The record count the collection maintains (MongoDB's
		// RECORD_STORE_FAST_COUNT).
		if st, err := e.CollectionStats(db, coll); err == nil {
			if os := opstats.From(ctx); os != nil {
				os.Plan("RECORD_STORE_FAST_COUNT", false)
			}
			n := max(st.Count-skip, 0)
			if limit > 0 {
				n = min(n, limit)
			}
			return n, nil
		}
	}
	r, release, c := e.snapshotOf(ctx, c)
	defer release()
	q := countReq(filter, f, skip, limit, hint, false)
	q.stats, q.records = opstats.From(ctx), records
	bp, err := e.buildPlan(r, c, q)
	if err != nil {
		return 0, err
	}
	defer bp.close()
	if err := runPlan(ctx, bp.root, func(*exec.Member) bool { return true }); err != nil {
		return 0, err
	}
	return bp.root.(*exec.Count).N(), nil
}

// countReq is the plan request of a count.
func countReq(filter bsoncore.Document, f *query.Filter, skip, limit int64, hint bsoncore.Value, timing bool) planReq {
	return planReq{filterDoc: filter, filter: f, hint: hint, covered: true, timing: timing,
		opts: exec.Options{Count: true, Skip: skip, Limit: limit}}
}

// Distinct returns the distinct values of key among the documents matching
// filter, arrays flattened one level, in MongoDB's sort order. When an
// index on key answers the filter, the values come from the index keys
// without reading documents.
func (e *Engine) Distinct(ctx context.Context, db, coll, key string, filter bsoncore.Document) ([]bsoncore.Value, error) {
	return e.DistinctCollated(ctx, db, coll, key, filter, nil)
}

// DistinctCollated is Distinct under a collation document (nil: the
// collection's default): strings equal under it are one value (the first
// met), and values come in its order.
func (e *Engine) DistinctCollated(ctx context.Context, db, coll, key string, filter, collationDoc bsoncore.Document) ([]bsoncore.Value, error) {
	if err := e.checkOpen(); err != nil {
		return nil, err
	}
	if e.isOplog(db, coll) {
		return nil, errOplogDistinct() // oplogcoll.go
	}
	if filter == nil {
		filter = emptyDoc
	}
	collator, err := e.statementCollator(db, coll, collationDoc)
	if err != nil {
		return nil, err
	}
	_, f, err := parseFilter(ctx, filter, nil, collator)
	if err != nil {
		return nil, err
	}
	c := e.cat.Load().lookup(db, coll)
	if c == nil {
		return []bsoncore.Value{}, nil
	}
	r, release, c := e.snapshotOf(ctx, c)
	defer release()
	q := distinctReq(filter, f, key, false)
	q.stats = opstats.From(ctx)
	bp, err := e.buildPlan(r, c, q)
	if err != nil {
		return nil, err
	}
	defer bp.close()
	vals, err := distinctValues(ctx, r, c, bp, key)
	if err != nil {
		return nil, err
	}
	if collator != nil {
		return distinctCollated(vals, collator), nil
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

// distinctReq is the plan request of a distinct.
func distinctReq(filter bsoncore.Document, f *query.Filter, key string, timing bool) planReq {
	return planReq{filterDoc: filter, filter: f, covered: true, distinctKey: key, timing: timing,
		opts: exec.Options{Keys: true}}
}

// distinctValues runs a distinct plan and collects the values of key.
func distinctValues(ctx context.Context, r storage.Reader, c *collection, bp *builtPlan, key string) ([]bsoncore.Value, error) {
	parts := splitDotted(key)
	var vals []bsoncore.Value
	var arrs []string
	var sl slab
	var buf []byte
	covered := bp.sol.Covered && bp.sol.Index != nil && bp.sol.Index.FieldIndex(key) >= 0
	var dirs []bool
	field := -1
	if covered {
		dirs = bp.sol.Index.Directions()
		field = bp.sol.Index.FieldIndex(key)
	}
	addDoc := func(doc []byte) {
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
	}
	var ferr error
	err := runPlan(ctx, bp.root, func(m *exec.Member) bool {
		if !covered || m.Key == nil {
			addDoc(m.Doc)
			return true
		}
		kv, err := keystring.Decode(m.Key, dirs, m.TypeBits)
		if err != nil {
			ferr = err
			return false
		}
		v := kv[field]
		if v.Type == bsoncore.TypeNull {
			// null keys also stand for missing fields: look at the document.
			doc, _, found, err := getRecordRef(r, c, m.RID, m.RKey, buf[:0])
			if err != nil {
				ferr = err
				return false
			}
			buf = doc
			if found {
				addDoc(doc)
			}
			return true
		}
		if n := len(vals); n > 0 && bsonutil.Compare(vals[n-1], v) == 0 {
			return true
		}
		vals = append(vals, bsoncore.Value{Type: v.Type, Data: sl.copy(v.Data)})
		return true
	})
	if err == nil {
		err = ferr
	}
	return vals, err
}
