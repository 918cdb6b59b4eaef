package window

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// calcArgs parses the {input, unit} argument of $derivative and
// $integral, and checks the sortBy they need.
func calcArgs(s *Spec, arg bsoncore.Value, pc *ParseContext) (expr.Expr, int64, error) {
	if pc.SortBy == nil {
		return nil, 0, errs.New(errs.FailedToParse, "%s requires a sortBy", s.Name)
	}
	if len(pc.SortBy.Fields) != 1 {
		return nil, 0, errs.New(errs.FailedToParse, "%s requires a non-compound sortBy", s.Name)
	}
	if arg.Type != bsoncore.TypeEmbeddedDocument {
		return nil, 0, errs.New(errs.FailedToParse, "%s expects an object, but got a %s: %s", s.Name, bsonutil.TypeName(arg.Type), bsonutil.FormatValue(arg, bsonutil.Style{}))
	}
	var in expr.Expr
	var unitMs int64
	elems, _ := arg.Document().Elements()
	for _, el := range elems {
		switch el.Key() {
		case "input":
			e, err := expr.Parse(el.Value(), pc.Expr)
			if err != nil {
				return nil, 0, err
			}
			in = e
		case "unit":
			v := el.Value()
			if v.Type != bsoncore.TypeString {
				return nil, 0, errs.New(errs.FailedToParse, "unit' must be a string, but got %s", bsonutil.TypeName(v.Type))
			}
			u := v.StringValue()
			if !expr.ValidTimeUnit(u) {
				return nil, 0, errs.New(errs.FailedToParse, "unknown time unit value: %s", u)
			}
			ms, ok := expr.UnitMillis(u)
			if !ok {
				return nil, 0, errs.New(errs.Location5490710, "unit must be 'week' or smaller")
			}
			unitMs = ms
		default:
			return nil, 0, errs.New(errs.FailedToParse, "%s got unexpected argument: %s", s.Name, el.Key())
		}
	}
	if in == nil {
		return nil, 0, errs.New(errs.FailedToParse, "%s requires an 'input' expression", s.Name)
	}
	return in, unitMs, nil
}

func parseDerivative(s *Spec, arg bsoncore.Value, hasWin bool, win bsoncore.Value, pc *ParseContext) error {
	in, unit, err := calcArgs(s, arg, pc)
	if err != nil {
		return err
	}
	if !hasWin {
		return errs.New(errs.FailedToParse, "$derivative requires explicit window bounds")
	}
	if s.Bounds, err = parseBounds(win, pc.SortBy); err != nil {
		return err
	}
	sortBy := pc.SortBy
	s.fresh = func(vars *expr.Vars) (Func, error) {
		return &derivFunc{in: in, unit: unit, vars: vars, sortBy: sortBy}, nil
	}
	return nil
}

func parseIntegral(s *Spec, arg bsoncore.Value, hasWin bool, win bsoncore.Value, pc *ParseContext) error {
	in, unit, err := calcArgs(s, arg, pc)
	if err != nil {
		return err
	}
	if s.Bounds, err = windowOf(hasWin, win, pc); err != nil {
		return err
	}
	sortBy, lowUnb := pc.SortBy, s.Bounds.LoUnb
	s.fresh = func(vars *expr.Vars) (Func, error) {
		return &calcFunc{in: in, unit: unit, vars: vars, sortBy: sortBy, lowUnb: lowUnb}, nil
	}
	return nil
}

// calcFunc is $integral: the trapezoidal area under the window's points,
// kept as a running sum so that a sliding window costs O(1) per
// document. x is the sortBy value: a number, or a date in milliseconds
// whose differences are divided by the unit.
type calcFunc struct {
	in         expr.Expr
	unit       int64
	vars       *expr.Vars
	sortBy     *SortInfo
	lowUnb     bool
	xs, ys     []float64
	head       int
	area, comp float64
}

func (c *calcFunc) point(doc bsoncore.Document) (float64, float64, error) {
	xv := c.sortBy.Value(doc)
	yv, err := c.in.Eval(doc, c.vars)
	if err != nil {
		return 0, 0, err
	}
	if !bsonutil.IsNumber(yv.Type) || !(bsonutil.IsNumber(xv.Type) || xv.Type == bsoncore.TypeDateTime) {
		return 0, 0, errs.New(errs.Location5423900, "The input value of $integral window function must be a vector of 2 value, the first value must be numeric or date type and the second must be numeric.")
	}
	if c.unit > 0 && xv.Type != bsoncore.TypeDateTime {
		return 0, 0, errs.New(errs.Location5423901, "$integral with 'unit' expects the sortBy field to be a Date")
	}
	if c.unit == 0 && xv.Type == bsoncore.TypeDateTime {
		return 0, 0, errs.New(errs.Location5423902, "$integral (with no 'unit') expects the sortBy field to be numeric")
	}
	x := bsonutil.AsFloat64(xv)
	if xv.Type == bsoncore.TypeDateTime {
		x = float64(xv.DateTime())
	}
	return x, bsonutil.AsFloat64(yv), nil
}

// dx is the distance from a to b in units (dates are held in
// milliseconds, so the subtraction is exact before the division).
func (c *calcFunc) dx(a, b float64) float64 {
	if c.unit > 0 {
		return (b - a) / float64(c.unit)
	}
	return b - a
}

func (c *calcFunc) add(a float64) {
	y := a - c.comp
	t := c.area + y
	c.comp = (t - c.area) - y
	c.area = t
}

func (c *calcFunc) Add(doc bsoncore.Document) error {
	x, y, err := c.point(doc)
	if err != nil {
		return err
	}
	if n := len(c.xs); n > c.head {
		c.add(c.dx(c.xs[n-1], x) * (y + c.ys[n-1]) / 2)
	}
	c.xs, c.ys = append(c.xs, x), append(c.ys, y)
	if c.lowUnb && len(c.xs)-c.head > 1 {
		// Nothing leaves the window: the area needs only the last point.
		c.head = len(c.xs) - 1
		if c.head > 1024 {
			c.xs, c.ys, c.head = append(c.xs[:0], x), append(c.ys[:0], y), 0
		}
	}
	return nil
}

func (c *calcFunc) Remove() error {
	if len(c.xs)-c.head >= 2 {
		h := c.head
		c.add(-c.dx(c.xs[h], c.xs[h+1]) * (c.ys[h+1] + c.ys[h]) / 2)
	}
	c.head++
	if c.head > 64 && c.head*2 > len(c.xs) {
		n := copy(c.xs, c.xs[c.head:])
		copy(c.ys, c.ys[c.head:])
		c.xs, c.ys, c.head = c.xs[:n], c.ys[:n], 0
	}
	if c.head == len(c.xs) {
		c.area, c.comp = 0, 0
	}
	return nil
}

func (c *calcFunc) Result(int64) (bsoncore.Value, error) {
	if len(c.xs) == c.head {
		return expr.Null, nil
	}
	return expr.Double(c.area), nil
}

func (c *calcFunc) MemUsage() int64 { return 64 + int64(cap(c.xs)+cap(c.ys))*8 }

// derivFunc is $derivative: (y_last - y_first) / (x_last - x_first) over
// the window's end points, per unit; as in mongod only the two end points
// are checked (5624900-5624903) and a zero run gives null.
type derivFunc struct {
	in     expr.Expr
	unit   int64
	vars   *expr.Vars
	sortBy *SortInfo
	xs, ys queue
}

func (d *derivFunc) Add(doc bsoncore.Document) error {
	y, err := d.in.Eval(doc, d.vars)
	if err != nil {
		return err
	}
	d.xs.push(d.sortBy.Value(doc))
	d.ys.push(y)
	return nil
}

func (d *derivFunc) Remove() error {
	d.xs.pop()
	d.ys.pop()
	return nil
}

func (d *derivFunc) Result(int64) (bsoncore.Value, error) {
	if d.xs.len() == 0 {
		return expr.Null, nil
	}
	lx, rx := d.xs.front(), d.xs.back()
	if d.unit > 0 {
		if lx.Type != bsoncore.TypeDateTime || rx.Type != bsoncore.TypeDateTime {
			return bsoncore.Value{}, errs.New(errs.Location5624900, "$derivative with 'unit' expects the sortBy field to be a Date")
		}
	} else {
		if lx.Type == bsoncore.TypeDateTime || rx.Type == bsoncore.TypeDateTime {
			return bsoncore.Value{}, errs.New(errs.Location5624901, "$derivative where the sortBy is a Date requires an 'unit'")
		}
		if !bsonutil.IsNumber(lx.Type) || !bsonutil.IsNumber(rx.Type) {
			return bsoncore.Value{}, errs.New(errs.Location5624902, "$derivative (with no 'unit') expects the sortBy field to be numeric")
		}
	}
	ly, ry := d.ys.front(), d.ys.back()
	if expr.IsNullish(ly) || expr.IsNullish(ry) {
		return bsoncore.Value{}, errs.New(errs.Location5624903, "$derivative input must not be null or missing")
	}
	if !bsonutil.IsNumber(ly.Type) || !bsonutil.IsNumber(ry.Type) {
		return bsoncore.Value{}, errs.New(errs.Location16556, "cant $subtract a %s from a %s", bsonutil.TypeName(ly.Type), bsonutil.TypeName(ry.Type))
	}
	// rise / run, the run in milliseconds for dates, then scaled by the
	// unit's milliseconds, as mongod computes it.
	var run float64
	if d.unit > 0 {
		run = float64(rx.DateTime() - lx.DateTime())
	} else {
		run = bsonutil.AsFloat64(rx) - bsonutil.AsFloat64(lx)
	}
	if run == 0 {
		return expr.Null, nil
	}
	rise := expr.NumSub(ry, ly)
	if rise.Type == bsoncore.TypeDecimal128 {
		r := expr.NumDiv(rise, expr.Double(run))
		if d.unit > 0 {
			r = expr.NumMul(r, expr.Int64(d.unit))
		}
		return r, nil
	}
	r := bsonutil.AsFloat64(rise) / run
	if d.unit > 0 {
		r *= float64(d.unit)
	}
	return expr.Double(r), nil
}

func (d *derivFunc) MemUsage() int64 { return d.xs.memUsage() + d.ys.memUsage() }
