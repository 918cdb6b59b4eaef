// Package recent finds the most recent documents in a set of categories,
// the pattern of seed 000 ("most recent n documents in categories").
//
// Documents carry a category field (CatField, "cat") and a timestamp
// field (TSField, "ts") indexed together as {cat: 1, ts: -1}. Two ways
// to ask for "the newest documents in these categories" are offered:
//
//   - Latest sorts and limits over the $in branches. With the index the
//     server merges the per-category ranges in order (SORT_MERGE), so the
//     result is exact and sorted.
//   - FindRecent is the seed's iterative algorithm: instead of sorting it
//     searches for a time threshold t such that between min and max
//     documents in the categories have ts > t, using only index counts
//     (count with hint {cat: 1, ts: -1}), then returns those documents
//     unsorted. The seed assumes a dense counter (ts = 0..total-1); here
//     the threshold is searched over the real timestamp range (numbers or
//     dates), first by doubling a window from the newest timestamp, then
//     by binary search.
//
// Sharding: on a MongoDB cluster the natural shard key is {cat: 1, ts: -1}
// (ranged), which keeps each category's newest range on few shards and lets
// both queries target only the shards holding the requested categories; a
// hashed key on cat alone also works but loses ts-range targeting.
package recent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Field names used by EnsureIndexes and FindRecent.
const (
	CatField = "cat"
	TSField  = "ts"
)

// IndexKeys is the index the seed recommends: {cat: 1, ts: -1}.
var IndexKeys = bson.D{{Key: CatField, Value: 1}, {Key: TSField, Value: -1}}

// EnsureIndexes creates the {cat: 1, ts: -1} index on coll.
func EnsureIndexes(ctx context.Context, coll *mongo.Collection) error {
	_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: IndexKeys})
	if err != nil {
		return fmt.Errorf("recent: create index on %s: %w", coll.Name(), err)
	}
	return nil
}

// Latest returns the n documents with the largest ts among those whose
// field is one of categories, newest first: find({field: {$in: cats}})
// .sort({ts: -1}).limit(n). With an index {field: 1, ts: -1} the server
// merges the per-category index ranges instead of sorting in memory.
func Latest(ctx context.Context, coll *mongo.Collection, field string, categories []any, n int64) ([]bson.Raw, error) {
	if n <= 0 {
		return nil, nil
	}
	filter := bson.D{{Key: field, Value: bson.D{{Key: "$in", Value: categories}}}}
	opts := options.Find().SetSort(bson.D{{Key: TSField, Value: -1}}).SetLimit(n)
	cur, err := coll.Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("recent: latest: %w", err)
	}
	var out []bson.Raw
	for cur.Next(ctx) {
		out = append(out, append(bson.Raw(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		cur.Close(ctx)
		return nil, fmt.Errorf("recent: latest: %w", err)
	}
	return out, cur.Close(ctx)
}

// Result is the outcome of a threshold search.
type Result struct {
	// Filter selects the documents found: {cat: {$in: ...}, ts: {$gt: T}}
	// (or only the $in when every matching document is returned).
	Filter bson.D
	// Count is the number of documents Filter matches.
	Count int64
	// Counts is how many count queries the search ran.
	Counts int
}

// FindRecent returns a cursor over between min and max of the most recent
// documents whose cat is one of categories, in no particular order; see
// Search for the algorithm and its edge cases.
func FindRecent(ctx context.Context, coll *mongo.Collection, categories []any, min, max int64) (*mongo.Cursor, error) {
	res, err := Search(ctx, coll, categories, min, max)
	if err != nil {
		return nil, err
	}
	opts := options.Find().SetHint(IndexKeys)
	if res.Count > max {
		// Ties at the threshold made the window unreachable: cut the
		// surplus from the oldest end.
		opts.SetSort(bson.D{{Key: TSField, Value: -1}}).SetLimit(max)
	}
	cur, err := coll.Find(ctx, res.Filter, opts)
	if err != nil {
		return nil, fmt.Errorf("recent: find: %w", err)
	}
	return cur, nil
}

// Search finds a threshold T such that the number c of documents with cat
// in categories and ts > T satisfies min <= c <= max, using counts served
// by the {cat: 1, ts: -1} index.
//
// Timestamps may be numbers (integers or doubles) or dates; all documents
// in the categories must use the same kind. If fewer than min documents
// match at all, the filter selects all of them (Count < min). If many
// documents share one timestamp, no threshold may hit the window; the
// search then returns the smallest count above max it found, and
// FindRecent sorts by ts descending and applies limit(max), so omitted documents are never newer
// than returned ones, but ties at the threshold are cut arbitrarily.
func Search(ctx context.Context, coll *mongo.Collection, categories []any, min, max int64) (Result, error) {
	if min < 0 || max < min || max == 0 {
		return Result{}, fmt.Errorf("recent: bad window [%d, %d]", min, max)
	}
	s := searcher{coll: coll, cats: categories}
	newest, oldest, total, err := s.bounds(ctx)
	if err != nil {
		return Result{}, err
	}
	catOnly := bson.D{{Key: CatField, Value: bson.D{{Key: "$in", Value: categories}}}}
	if total <= max {
		return Result{Filter: catOnly, Count: total, Counts: s.counts}, nil
	}
	lo, hi := oldest.x, newest.x // count(ts > hi) = 0 < min; count(ts > lo) <= total.
	// Doubling: the first window is sized from the average density so a
	// uniform stream hits the target at once, as the seed's step=min does
	// for a dense counter.
	step := (newest.x - oldest.x) * float64(min) / float64(total)
	if step <= 0 || s.integral && step < 1 {
		step = 1
	}
	var (
		thr   float64
		c     int64
		above = Result{Count: math.MaxInt64} // best count > max seen
	)
	for {
		thr = newest.x - step
		if thr <= oldest.x {
			thr = oldest.x // ts > oldest: everything but the oldest tie
		}
		if c, err = s.count(ctx, newest.kind, thr); err != nil {
			return Result{}, err
		}
		if c >= min {
			break
		}
		hi = thr
		if thr == oldest.x {
			return Result{Filter: catOnly, Count: total, Counts: s.counts}, nil
		}
		step *= 2
	}
	if c <= max {
		return Result{Filter: s.filter(newest.kind, thr), Count: c, Counts: s.counts}, nil
	}
	lo = thr
	above = Result{Filter: s.filter(newest.kind, thr), Count: c}
	// Binary search: count(ts > lo) > max, count(ts > hi) < min.
	for i := 0; i < 200; i++ {
		mid := lo + (hi-lo)/2
		if s.integral {
			mid = math.Floor(mid)
		}
		if mid <= lo || mid >= hi {
			break
		}
		if c, err = s.count(ctx, newest.kind, mid); err != nil {
			return Result{}, err
		}
		switch {
		case c > max:
			lo = mid
			if c < above.Count {
				above = Result{Filter: s.filter(newest.kind, mid), Count: c}
			}
		case c < min:
			hi = mid
		default:
			return Result{Filter: s.filter(newest.kind, mid), Count: c, Counts: s.counts}, nil
		}
	}
	above.Counts = s.counts
	return above, nil
}

type kind int

const (
	kindNumber kind = iota
	kindDate
)

type point struct {
	x    float64
	kind kind
}

type searcher struct {
	coll     *mongo.Collection
	cats     []any
	integral bool
	counts   int
}

func (s *searcher) filter(k kind, thr float64) bson.D {
	var v any = thr
	switch {
	case k == kindDate:
		v = bson.DateTime(int64(thr))
	case s.integral:
		v = int64(thr)
	}
	return bson.D{
		{Key: CatField, Value: bson.D{{Key: "$in", Value: s.cats}}},
		{Key: TSField, Value: bson.D{{Key: "$gt", Value: v}}},
	}
}

// count runs the count command with the index hint, like the seed's
// cursor.count(); the server answers it from the index alone.
func (s *searcher) count(ctx context.Context, k kind, thr float64) (int64, error) {
	return s.countFilter(ctx, s.filter(k, thr))
}

func (s *searcher) countFilter(ctx context.Context, filter bson.D) (int64, error) {
	s.counts++
	cmd := bson.D{{Key: "count", Value: s.coll.Name()}, {Key: "query", Value: filter}, {Key: "hint", Value: IndexKeys}}
	var out struct {
		N int64 `bson:"n"`
	}
	if err := s.coll.Database().RunCommand(ctx, cmd).Decode(&out); err != nil {
		return 0, fmt.Errorf("recent: count: %w", err)
	}
	return out.N, nil
}

// bounds returns the newest and oldest timestamps in the categories and
// the number of documents in them.
func (s *searcher) bounds(ctx context.Context) (newest, oldest point, total int64, err error) {
	catOnly := bson.D{{Key: CatField, Value: bson.D{{Key: "$in", Value: s.cats}}}}
	if total, err = s.countFilter(ctx, catOnly); err != nil {
		return
	}
	if total == 0 {
		return
	}
	ends := [2]point{}
	integral := true
	for i, dir := range []int{-1, 1} {
		opts := options.FindOne().SetSort(bson.D{{Key: TSField, Value: dir}}).
			SetProjection(bson.D{{Key: TSField, Value: 1}, {Key: "_id", Value: 0}})
		raw, ferr := s.coll.FindOne(ctx, catOnly, opts).Raw()
		if ferr != nil {
			err = fmt.Errorf("recent: find bounds: %w", ferr)
			return
		}
		v, lerr := raw.LookupErr(TSField)
		if lerr != nil {
			err = errors.New("recent: a document in the categories has no ts")
			return
		}
		switch v.Type {
		case bson.TypeInt32:
			ends[i] = point{x: float64(v.Int32())}
		case bson.TypeInt64:
			ends[i] = point{x: float64(v.Int64())}
		case bson.TypeDouble:
			ends[i] = point{x: v.Double()}
			integral = false
		case bson.TypeDateTime:
			ends[i] = point{x: float64(v.DateTime()), kind: kindDate}
		default:
			err = fmt.Errorf("recent: ts must be a number or a date, found %s", v.Type)
			return
		}
	}
	if ends[0].kind != ends[1].kind {
		err = errors.New("recent: ts mixes numbers and dates")
		return
	}
	s.integral = integral
	return ends[0], ends[1], total, nil
}

// Since is a convenience for date timestamps: it returns the time of a
// threshold filter built by Search (the $gt bound), for logging.
func Since(r Result) (time.Time, bool) {
	for _, e := range r.Filter {
		if e.Key != TSField {
			continue
		}
		if d, ok := e.Value.(bson.D); ok && len(d) == 1 {
			if dt, ok := d[0].Value.(bson.DateTime); ok {
				return dt.Time(), true
			}
		}
	}
	return time.Time{}, false
}
