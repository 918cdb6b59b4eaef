package accum

import (
	"math"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// sumAcc implements $sum, $avg and $count over expr.Sum (integers exact
// in int64, doubles with Kahan's compensation, decimals as decimals).
type sumAcc struct {
	avg bool
	expr.Sum
}

func (a *sumAcc) Add(v bsoncore.Value) error {
	a.Sum.Add(v)
	return nil
}

func (a *sumAcc) Result() (bsoncore.Value, error) {
	if a.avg {
		return a.Avg(), nil
	}
	return a.Total(), nil
}

func (a *sumAcc) MemUsage() int { return 96 }

// minMaxAcc implements $min (dir -1) and $max (dir 1); null and missing
// are ignored.
type minMaxAcc struct {
	dir  int
	v    bsoncore.Value
	coll *collation.Collator
}

func (a *minMaxAcc) Add(v bsoncore.Value) error {
	if expr.IsNullish(v) {
		return nil
	}
	if a.v.Type == 0 || expr.CompareWith(a.coll, v, a.v)*a.dir > 0 {
		a.v = copyVal(v)
	}
	return nil
}

func (a *minMaxAcc) Result() (bsoncore.Value, error) {
	if a.v.Type == 0 {
		return expr.Null, nil
	}
	return a.v, nil
}

func (a *minMaxAcc) MemUsage() int { return valOverhead + len(a.v.Data) }

// firstLastAcc implements $first and $last; missing becomes null.
type firstLastAcc struct {
	first bool
	seen  bool
	v     bsoncore.Value
}

func (a *firstLastAcc) Add(v bsoncore.Value) error {
	if a.first && a.seen {
		return nil
	}
	a.seen = true
	if v.Type == 0 {
		v = expr.Null
	}
	a.v = copyVal(v)
	return nil
}

func (a *firstLastAcc) Result() (bsoncore.Value, error) {
	if !a.seen {
		return expr.Null, nil
	}
	return a.v, nil
}

func (a *firstLastAcc) MemUsage() int { return valOverhead + len(a.v.Data) }

// pushAcc implements $push and $addToSet (set: distinct values).
type pushAcc struct {
	set   bool
	vals  []bsoncore.Value
	mem   int
	limit int64 // Factory.MaxBytes
	coll  *collation.Collator
}

func (a *pushAcc) Add(v bsoncore.Value) error {
	if v.Type == 0 {
		return nil
	}
	if a.set {
		for _, x := range a.vals {
			if expr.CompareWith(a.coll, x, v) == 0 {
				return nil
			}
		}
	}
	a.vals = append(a.vals, copyVal(v))
	a.mem += valOverhead + len(v.Data)
	return a.checkLimit()
}

func (a *pushAcc) Result() (bsoncore.Value, error) { return expr.Array(a.vals...), nil }

func (a *pushAcc) MemUsage() int { return a.mem }

// stdDevAcc implements $stdDevPop and $stdDevSamp (Welford's algorithm).
type stdDevAcc struct {
	samp     bool
	n        int64
	mean, m2 float64
}

func (a *stdDevAcc) Add(v bsoncore.Value) error {
	if !bsonutil.IsNumber(v.Type) {
		return nil
	}
	x := bsonutil.AsFloat64(v)
	a.n++
	d := x - a.mean
	a.mean += d / float64(a.n)
	a.m2 += d * (x - a.mean)
	return nil
}

func (a *stdDevAcc) Result() (bsoncore.Value, error) {
	if a.n == 0 || (a.samp && a.n == 1) {
		return expr.Null, nil
	}
	div := float64(a.n)
	if a.samp {
		div--
	}
	return expr.Double(math.Sqrt(a.m2 / div)), nil
}

func (a *stdDevAcc) MemUsage() int { return 48 }

// mergeAcc implements $mergeObjects.
type mergeAcc struct {
	keys []string
	vals map[string]bsoncore.Value
	mem  int
}

func (a *mergeAcc) Add(v bsoncore.Value) error {
	if expr.IsNullish(v) {
		return nil
	}
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return errs.New(errs.Location40400, "$mergeObjects requires object inputs, but input %s is of type %s", v.String(), bsonutil.TypeName(v.Type))
	}
	c := copyVal(v)
	a.mem += len(c.Data) + valOverhead
	a.keys = expr.MergeInto(a.keys, a.vals, c)
	return nil
}

func (a *mergeAcc) Result() (bsoncore.Value, error) {
	b := expr.NewDocBuilder()
	for _, k := range a.keys {
		b.Append(k, a.vals[k])
	}
	return b.Value(), nil
}

func (a *mergeAcc) MemUsage() int { return a.mem }
