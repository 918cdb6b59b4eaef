package window

import (
	"math"
	"sort"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/keystring"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func pushLimitError(name string, limit int64) error {
	return errs.New(errs.ExceededMemoryLimit, "%s used too much memory and cannot spill to disk. Memory limit: %d bytes", name, limit)
}

// stdDevFunc is the removable $stdDevPop and $stdDevSamp: Welford's mean
// and sum of squared deviations, updated in reverse on removal.
// Non-numeric values are skipped.
type stdDevFunc struct {
	inputFunc
	samp     bool
	n        int64
	mean, m2 float64
}

func (s *stdDevFunc) Add(doc bsoncore.Document) error {
	v, err := s.input(doc)
	if err != nil {
		return err
	}
	s.remember(v)
	if !bsonutil.IsNumber(v.Type) {
		return nil
	}
	x := bsonutil.AsFloat64(v)
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (x - s.mean)
	return nil
}

func (s *stdDevFunc) Remove() error {
	v := s.q.pop()
	if !bsonutil.IsNumber(v.Type) {
		return nil
	}
	x := bsonutil.AsFloat64(v)
	if s.n <= 1 {
		s.n, s.mean, s.m2 = 0, 0, 0
		return nil
	}
	old := (float64(s.n)*s.mean - x) / float64(s.n-1)
	s.m2 -= (x - old) * (x - s.mean)
	if s.m2 < 0 {
		s.m2 = 0
	}
	s.mean = old
	s.n--
	if s.n == 1 {
		// One value has no deviation; drop the rounding left over.
		s.m2 = 0
	}
	return nil
}

func (s *stdDevFunc) Result(int64) (bsoncore.Value, error) {
	if s.n == 0 || (s.samp && s.n == 1) {
		return expr.Null, nil
	}
	div := float64(s.n)
	if s.samp {
		div--
	}
	return expr.Double(math.Sqrt(s.m2 / div)), nil
}

func (s *stdDevFunc) MemUsage() int64 { return 64 + s.q.memUsage() }

// setFunc is the removable $addToSet: a multiset of the window's values
// keyed by their keystring (so 1 and 1.0 are one value), output in
// MongoDB's value order as mongod's removable $addToSet does.
type setFunc struct {
	inputFunc
	keys   [][]byte
	counts map[string]*setEntry
	mem    int64
}

type setEntry struct {
	v bsoncore.Value
	n int
}

func newSetFunc(in inputFunc) *setFunc {
	return &setFunc{inputFunc: in, counts: map[string]*setEntry{}}
}

func (s *setFunc) Add(doc bsoncore.Document) error {
	v, err := s.input(doc)
	if err != nil {
		return err
	}
	var k []byte
	if v.Type != 0 {
		// Under a collation, values equal under it are one (the first
		// met is kept).
		k = keystring.AppendValue(nil, s.f.Collator().Transform(v), false)
		if e := s.counts[string(k)]; e != nil {
			e.n++
		} else {
			c := bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
			s.counts[string(k)] = &setEntry{v: c, n: 1}
			s.mem += 2*valueOverhead + int64(len(k)+len(c.Data))
			if s.f.MaxBytes > 0 && s.mem > s.f.MaxBytes {
				return pushLimitError("$addToSet", s.f.MaxBytes)
			}
		}
	}
	if s.keep {
		s.keys = append(s.keys, k)
	}
	return nil
}

func (s *setFunc) Remove() error {
	k := s.keys[0]
	s.keys[0] = nil
	s.keys = s.keys[1:]
	if k == nil {
		return nil
	}
	e := s.counts[string(k)]
	if e.n--; e.n == 0 {
		delete(s.counts, string(k))
		s.mem -= 2*valueOverhead + int64(len(k)+len(e.v.Data))
	}
	return nil
}

func (s *setFunc) Result(int64) (bsoncore.Value, error) {
	out := make([]bsoncore.Value, 0, len(s.counts))
	for _, e := range s.counts {
		out = append(out, e.v)
	}
	sort.Slice(out, func(i, j int) bool { return expr.CompareWith(s.f.Collator(), out[i], out[j]) < 0 })
	return expr.Array(out...), nil
}

func (s *setFunc) MemUsage() int64 { return s.mem + int64(cap(s.keys))*24 }

// covFunc is $covariancePop and $covarianceSamp over a window of
// [x, y] pairs (both numeric; other documents are skipped), updated in
// reverse on removal.
type covFunc struct {
	x, y      expr.Expr
	vars      *expr.Vars
	samp      bool
	keep      bool
	xs, ys    []float64
	ok        []bool
	n         int64
	mx, my, c float64
}

func parseCovariance(s *Spec, arg bsoncore.Value, hasWin bool, win bsoncore.Value, pc *ParseContext) error {
	var xv, yv bsoncore.Value
	if arg.Type == bsoncore.TypeArray {
		vals, _ := arg.Array().Values()
		if len(vals) == 2 {
			xv, yv = vals[0], vals[1]
		}
	}
	if xv.Type == 0 {
		return errs.New(errs.Location40237, "%s requires an array of two expressions", s.Name)
	}
	x, err := expr.Parse(xv, pc.Expr)
	if err != nil {
		return err
	}
	y, err := expr.Parse(yv, pc.Expr)
	if err != nil {
		return err
	}
	if s.Bounds, err = windowOf(hasWin, win, pc); err != nil {
		return err
	}
	samp, keep := s.Name == "$covarianceSamp", !s.Bounds.LoUnb
	s.fresh = func(vars *expr.Vars) (Func, error) {
		return &covFunc{x: x, y: y, vars: vars, samp: samp, keep: keep}, nil
	}
	return nil
}

func (c *covFunc) Add(doc bsoncore.Document) error {
	xv, err := c.x.Eval(doc, c.vars)
	if err != nil {
		return err
	}
	yv, err := c.y.Eval(doc, c.vars)
	if err != nil {
		return err
	}
	ok := bsonutil.IsNumber(xv.Type) && bsonutil.IsNumber(yv.Type)
	var x, y float64
	if ok {
		x, y = bsonutil.AsFloat64(xv), bsonutil.AsFloat64(yv)
		c.n++
		dx := x - c.mx
		c.mx += dx / float64(c.n)
		c.my += (y - c.my) / float64(c.n)
		c.c += dx * (y - c.my)
	}
	if c.keep {
		c.xs, c.ys, c.ok = append(c.xs, x), append(c.ys, y), append(c.ok, ok)
	}
	return nil
}

func (c *covFunc) Remove() error {
	x, y, ok := c.xs[0], c.ys[0], c.ok[0]
	c.xs, c.ys, c.ok = c.xs[1:], c.ys[1:], c.ok[1:]
	if !ok {
		return nil
	}
	if c.n <= 1 {
		c.n, c.mx, c.my, c.c = 0, 0, 0, 0
		return nil
	}
	n := float64(c.n)
	mx := (n*c.mx - x) / (n - 1)
	c.c -= (x - mx) * (y - c.my)
	c.mx, c.my = mx, (n*c.my-y)/(n-1)
	c.n--
	return nil
}

func (c *covFunc) Result(int64) (bsoncore.Value, error) {
	if c.n == 0 || (c.samp && c.n == 1) {
		return expr.Null, nil
	}
	if c.n == 1 {
		// One pair: 0 exactly, as mongod answers, whatever residue the
		// removals left in the co-moment.
		return expr.Double(0), nil
	}
	div := float64(c.n)
	if c.samp {
		div--
	}
	return expr.Double(c.c / div), nil
}

func (c *covFunc) MemUsage() int64 { return 64 + int64(cap(c.xs))*17 }
