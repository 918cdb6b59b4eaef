package accum

import (
	"sort"

	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// firstNAcc implements $firstN; missing inputs count as null.
type firstNAcc struct {
	n    int64
	vals []bsoncore.Value
	mem  int
}

func (a *firstNAcc) Add(v bsoncore.Value) error {
	if int64(len(a.vals)) >= a.n {
		return nil
	}
	if v.Type == 0 {
		v = expr.Null
	}
	a.vals = append(a.vals, copyVal(v))
	a.mem += valOverhead + len(v.Data)
	return nil
}

func (a *firstNAcc) Result() (bsoncore.Value, error) { return expr.Array(a.vals...), nil }
func (a *firstNAcc) MemUsage() int                   { return a.mem }

// lastNAcc implements $lastN with a ring of the last n values.
type lastNAcc struct {
	n    int64
	vals []bsoncore.Value
	next int
	mem  int
}

func (a *lastNAcc) Add(v bsoncore.Value) error {
	if v.Type == 0 {
		v = expr.Null
	}
	c := copyVal(v)
	if int64(len(a.vals)) < a.n {
		a.vals = append(a.vals, c)
		a.mem += valOverhead + len(c.Data)
		return nil
	}
	a.mem += len(c.Data) - len(a.vals[a.next].Data)
	a.vals[a.next] = c
	a.next = (a.next + 1) % len(a.vals)
	return nil
}

func (a *lastNAcc) Result() (bsoncore.Value, error) {
	out := append(append([]bsoncore.Value{}, a.vals[a.next:]...), a.vals[:a.next]...)
	return expr.Array(out...), nil
}
func (a *lastNAcc) MemUsage() int { return a.mem }

// extremeNAcc implements $minN (dir 1) and $maxN (dir -1): the n smallest
// or largest non-null values, best first.
type extremeNAcc struct {
	n    int64
	dir  int
	vals []bsoncore.Value
	mem  int
	coll *collation.Collator
}

func (a *extremeNAcc) Add(v bsoncore.Value) error {
	if expr.IsNullish(v) {
		return nil
	}
	less := func(x, y bsoncore.Value) bool { return expr.CompareWith(a.coll, x, y)*a.dir < 0 }
	if int64(len(a.vals)) >= a.n && !less(v, a.vals[len(a.vals)-1]) {
		return nil
	}
	c := copyVal(v)
	i := sort.Search(len(a.vals), func(i int) bool { return less(c, a.vals[i]) })
	a.vals = append(a.vals, bsoncore.Value{})
	copy(a.vals[i+1:], a.vals[i:])
	a.vals[i] = c
	a.mem += valOverhead + len(c.Data)
	if int64(len(a.vals)) > a.n {
		a.mem -= valOverhead + len(a.vals[len(a.vals)-1].Data)
		a.vals = a.vals[:len(a.vals)-1]
	}
	return nil
}

func (a *extremeNAcc) Result() (bsoncore.Value, error) { return expr.Array(a.vals...), nil }
func (a *extremeNAcc) MemUsage() int                   { return a.mem }

// topAcc implements $top, $bottom, $topN and $bottomN. Inputs are arrays
// [sortKey..., output] built by Factory.Input.
type topAcc struct {
	f      *Factory
	n      int64
	single bool
	bottom bool
	items  [][]bsoncore.Value
	mem    int
}

// cmp compares two items in sortBy's order.
func (a *topAcc) cmp(x, y []bsoncore.Value) int {
	for i, d := range a.f.sortBy.Dirs {
		if c := expr.CompareWith(a.f.coll, x[i], y[i]) * d; c != 0 {
			return c
		}
	}
	return 0
}

// itemSize is what an item adds to MemUsage.
func itemSize(it []bsoncore.Value) int {
	n := valOverhead
	for _, v := range it {
		n += len(v.Data)
	}
	return n
}

// Add keeps the items in sortBy's order, tied items in arrival order:
// the first n for $top/$topN, the last n for $bottom/$bottomN. When the
// accumulator is full, an item that does not sort strictly inside the
// kept ones is dropped, so of tied items the first seen stays (mongod's
// "when the sort key produces a tie we keep the first value seen"):
// $bottom over scores [1, 2, 3, null (D), null (E)] sorted descending is
// D, and $bottomN with n 3 is [1, D, E].
func (a *topAcc) Add(v bsoncore.Value) error {
	if v.Type != bsoncore.TypeArray {
		return nil
	}
	c := copyVal(v)
	item := expr.ArrayValues(c)
	full := int64(len(a.items)) >= a.n
	if a.bottom {
		if full && a.cmp(item, a.items[0]) <= 0 {
			return nil
		}
	} else if full && a.cmp(item, a.items[len(a.items)-1]) >= 0 {
		return nil
	}
	// After the items it ties with.
	i := sort.Search(len(a.items), func(i int) bool { return a.cmp(item, a.items[i]) < 0 })
	a.items = append(a.items, nil)
	copy(a.items[i+1:], a.items[i:])
	a.items[i] = item
	a.mem += itemSize(item)
	if int64(len(a.items)) > a.n {
		drop := len(a.items) - 1
		if a.bottom {
			drop = 0
		}
		a.mem -= itemSize(a.items[drop])
		a.items = append(a.items[:drop], a.items[drop+1:]...)
	}
	return nil
}

func (a *topAcc) Result() (bsoncore.Value, error) {
	if a.single {
		if len(a.items) == 0 {
			return expr.Null, nil
		}
		it := a.items[0]
		return it[len(it)-1], nil
	}
	out := make([]bsoncore.Value, len(a.items))
	for i, it := range a.items {
		out[i] = it[len(it)-1]
	}
	return expr.Array(out...), nil
}

func (a *topAcc) MemUsage() int { return a.mem }
