package accum

import (
	"math"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// sumAcc implements $sum, $avg and $count. Integers sum exactly in int64
// (int32 result when every input was int32 and it fits); an int64
// overflow switches to double; doubles use Kahan summation; any decimal
// makes the result decimal.
type sumAcc struct {
	avg      bool
	count    int64
	kind     bsoncore.Type
	i        int64
	overflow bool
	f, c     float64 // Kahan sum and compensation
	dec      bsoncore.Value
	hasDec   bool
}

func (a *sumAcc) Add(v bsoncore.Value) error {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		x := bsonutil.AsInt64(v)
		if !a.overflow {
			s := a.i + x
			if (a.i >= 0) == (x >= 0) && (s >= 0) != (x >= 0) {
				a.overflow = true
				a.kahan(float64(a.i) + float64(x))
				a.i = 0
			} else {
				a.i = s
			}
		} else {
			a.kahan(float64(x))
		}
		if a.kind != bsoncore.TypeDouble && a.kind != bsoncore.TypeDecimal128 && (a.kind != bsoncore.TypeInt64 || v.Type == bsoncore.TypeInt64) {
			a.kind = v.Type
		}
	case bsoncore.TypeDouble:
		a.kahan(v.Double())
		if a.kind != bsoncore.TypeDecimal128 {
			a.kind = bsoncore.TypeDouble
		}
	case bsoncore.TypeDecimal128:
		if !a.hasDec {
			a.dec, a.hasDec = copyVal(v), true
		} else {
			a.dec = expr.NumAdd(a.dec, v)
		}
		a.kind = bsoncore.TypeDecimal128
	default:
		return nil
	}
	a.count++
	return nil
}

func (a *sumAcc) kahan(x float64) {
	y := x - a.c
	t := a.f + y
	a.c = (t - a.f) - y
	a.f = t
}

func (a *sumAcc) total() bsoncore.Value {
	switch {
	case a.kind == bsoncore.TypeDecimal128:
		t := a.dec
		if a.i != 0 {
			t = expr.NumAdd(t, expr.Int64(a.i))
		}
		if a.f != 0 {
			t = expr.NumAdd(t, expr.Double(a.f))
		}
		return t
	case a.kind == bsoncore.TypeDouble || a.overflow:
		return expr.Double(a.f + float64(a.i))
	case a.kind == bsoncore.TypeInt64:
		return expr.Int64(a.i)
	case a.i >= math.MinInt32 && a.i <= math.MaxInt32:
		return expr.Int32(int32(a.i))
	}
	return expr.Int64(a.i)
}

func (a *sumAcc) Result() (bsoncore.Value, error) {
	if !a.avg {
		if a.count == 0 {
			return expr.Int32(0), nil
		}
		return a.total(), nil
	}
	if a.count == 0 {
		return expr.Null, nil
	}
	t := a.total()
	if t.Type == bsoncore.TypeDecimal128 {
		return expr.NumDiv(t, expr.Int64(a.count)), nil
	}
	return expr.Double(bsonutil.AsFloat64(t) / float64(a.count)), nil
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
