package window

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// parseExpMovingAvg parses {$expMovingAvg: {input, N | alpha}}.
func parseExpMovingAvg(s *Spec, arg bsoncore.Value, hasWin bool, _ bsoncore.Value, pc *ParseContext) error {
	if hasWin || arg.Type != bsoncore.TypeEmbeddedDocument {
		return errs.New(errs.FailedToParse, "$expMovingAvg must have exactly one argument that is an object")
	}
	d := arg.Document()
	n, _ := bsonutil.CountElements(d)
	in, hasIn := lookup(d, "input")
	if n != 2 || !hasIn {
		return errs.New(errs.FailedToParse, "$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field")
	}
	if pc.SortBy == nil {
		return errs.New(errs.FailedToParse, "$expMovingAvg requires an explicit 'sortBy'")
	}
	input, err := expr.Parse(in, pc.Expr)
	if err != nil {
		return err
	}
	var alpha float64
	if nv, ok := lookup(d, "N"); ok {
		if !bsonutil.IsNumber(nv.Type) {
			return errs.New(errs.FailedToParse, "'N' field must be an integer, but found type %s", bsonutil.TypeName(nv.Type))
		}
		i, ok := integral(nv)
		if !ok {
			return errs.New(errs.FailedToParse, "'N' field must be an integer, but found  N: %s. To use a non-integer, use the 'alpha' argument instead", bsonutil.FormatValue(nv, bsonutil.Style{}))
		}
		if i <= 0 {
			return errs.New(errs.FailedToParse, "'N' must be greater than zero. Got %d", i)
		}
		alpha = 2 / (float64(i) + 1)
	} else if av, ok := lookup(d, "alpha"); ok {
		if !bsonutil.IsNumber(av.Type) {
			return errs.New(errs.FailedToParse, "'alpha' must be a number")
		}
		alpha = bsonutil.AsFloat64(av)
		if !(alpha > 0 && alpha < 1) {
			return errs.New(errs.FailedToParse, "'alpha' must be between 0 and 1 (exclusive), found alpha: %s", bsonutil.FormatValue(av, bsonutil.Style{}))
		}
	} else {
		return errs.New(errs.FailedToParse, "Got unrecognized field in $expMovingAvg$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field")
	}
	s.noWindow, s.Bounds = true, toCurrent
	s.fresh = func(vars *expr.Vars) (Func, error) { return &emaFunc{in: input, vars: vars, alpha: alpha}, nil }
	return nil
}

// emaFunc is $expMovingAvg: result = alpha*x + (1-alpha)*previous, the
// first numeric input as the start; non-numeric inputs are skipped (null
// until the first number). A decimal input gives a decimal.
type emaFunc struct {
	in    expr.Expr
	vars  *expr.Vars
	alpha float64
	cur   bsoncore.Value
}

func (e *emaFunc) Add(doc bsoncore.Document) error {
	v, err := e.in.Eval(doc, e.vars)
	if err != nil {
		return err
	}
	if !bsonutil.IsNumber(v.Type) {
		return nil
	}
	if e.cur.Type == 0 {
		if v.Type == bsoncore.TypeDecimal128 {
			e.cur = v
		} else {
			e.cur = expr.Double(bsonutil.AsFloat64(v))
		}
		e.cur = bsoncore.Value{Type: e.cur.Type, Data: append([]byte(nil), e.cur.Data...)}
		return nil
	}
	if v.Type == bsoncore.TypeDecimal128 || e.cur.Type == bsoncore.TypeDecimal128 {
		a := expr.Double(e.alpha)
		e.cur = expr.NumAdd(expr.NumMul(v, a), expr.NumMul(e.cur, expr.NumSub(expr.Int32(1), a)))
		return nil
	}
	e.cur = expr.Double(e.alpha*bsonutil.AsFloat64(v) + (1-e.alpha)*e.cur.Double())
	return nil
}

func (e *emaFunc) Remove() error { return nil }

func (e *emaFunc) Result(int64) (bsoncore.Value, error) {
	if e.cur.Type == 0 {
		return expr.Null, nil
	}
	return e.cur, nil
}

func (e *emaFunc) MemUsage() int64 { return 64 }

// parseLocf parses {$locf: <expr>}: no window, no sortBy needed.
func parseLocf(s *Spec, arg bsoncore.Value, hasWin bool, _ bsoncore.Value, pc *ParseContext) error {
	if hasWin {
		return errs.New(errs.FailedToParse, "'window' field is not allowed in $locf")
	}
	in, err := expr.Parse(arg, pc.Expr)
	if err != nil {
		return err
	}
	s.noWindow, s.Bounds = true, toCurrent
	s.fresh = func(vars *expr.Vars) (Func, error) { return &locfFunc{in: in, vars: vars}, nil }
	return nil
}

// locfFunc is $locf: the last non-null value so far, else null.
type locfFunc struct {
	in   expr.Expr
	vars *expr.Vars
	last bsoncore.Value
}

func (l *locfFunc) Add(doc bsoncore.Document) error {
	v, err := l.in.Eval(doc, l.vars)
	if err != nil {
		return err
	}
	if !expr.IsNullish(v) {
		l.last = bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
	}
	return nil
}

func (l *locfFunc) Remove() error { return nil }

func (l *locfFunc) Result(int64) (bsoncore.Value, error) {
	if l.last.Type == 0 {
		return expr.Null, nil
	}
	return l.last, nil
}

func (l *locfFunc) MemUsage() int64 { return 32 + int64(len(l.last.Data)) }

// parseLinearFill parses {$linearFill: <expr>}: no window, a sortBy of
// exactly one field.
func parseLinearFill(s *Spec, arg bsoncore.Value, hasWin bool, _ bsoncore.Value, pc *ParseContext) error {
	if hasWin {
		return errs.New(errs.FailedToParse, "'window' field is not allowed in $linearFill")
	}
	if pc.SortBy == nil || len(pc.SortBy.Fields) != 1 {
		return errs.New(errs.Location605001, "$linearFill must be specified with a top level sortBy expression with exactly one element")
	}
	in, err := expr.Parse(arg, pc.Expr)
	if err != nil {
		return err
	}
	s.noWindow, s.Bounds = true, Unbounded
	sortBy := pc.SortBy
	s.fresh = func(vars *expr.Vars) (Func, error) { return &linearFillFunc{in: in, vars: vars, sortBy: sortBy}, nil }
	return nil
}

// linearFillFunc is $linearFill: a null or missing value between two
// numeric ones is interpolated linearly on the sortBy value; outside them
// it stays null. Its window is the whole partition.
type linearFillFunc struct {
	in         expr.Expr
	vars       *expr.Vars
	sortBy     *SortInfo
	xs         []float64
	ys         []bsoncore.Value
	prev, next []int
	// last is the previous sortBy value: mongod refuses repeats and a
	// mix of numbers and dates.
	last bsoncore.Value
}

func (l *linearFillFunc) Add(doc bsoncore.Document) error {
	v, err := l.in.Eval(doc, l.vars)
	if err != nil {
		return err
	}
	if !expr.IsNullish(v) && !bsonutil.IsNumber(v.Type) {
		return errs.New(errs.TypeMismatch, "Value to be filled must be numeric or nullish, but found %s", bsonutil.TypeName(v.Type))
	}
	xv := l.sortBy.Value(doc)
	if !bsonutil.IsNumber(xv.Type) && xv.Type != bsoncore.TypeDateTime {
		return errs.New(errs.TypeMismatch, "Value of the sortBy field must be numeric or a date, but found %s", bsonutil.TypeName(xv.Type))
	}
	if l.last.Type != 0 {
		if bsonutil.Compare(xv, l.last) == 0 {
			return errs.New(errs.Location6050106, "There can be no repeated values in the sort field in the same partition")
		}
		if (xv.Type == bsoncore.TypeDateTime) != (l.last.Type == bsoncore.TypeDateTime) {
			return errs.New(errs.TypeMismatch, "Conflicting sort value types, previously received type %s, but found %s", bsonutil.TypeName(l.last.Type), bsonutil.TypeName(xv.Type))
		}
	}
	l.last = bsoncore.Value{Type: xv.Type, Data: append(l.last.Data[:0], xv.Data...)}
	x, err := sortNumber(xv, "$linearFill")
	if err != nil {
		return err
	}
	if expr.IsNullish(v) {
		v = bsoncore.Value{}
	} else {
		v = bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
	}
	l.xs, l.ys = append(l.xs, x), append(l.ys, v)
	l.prev = nil
	return nil
}

func (l *linearFillFunc) Remove() error { return nil }

func (l *linearFillFunc) Result(i int64) (bsoncore.Value, error) {
	if l.prev == nil {
		n := len(l.ys)
		l.prev, l.next = make([]int, n), make([]int, n)
		p := -1
		for j := 0; j < n; j++ {
			if l.ys[j].Type != 0 {
				p = j
			}
			l.prev[j] = p
		}
		q := -1
		for j := n - 1; j >= 0; j-- {
			if l.ys[j].Type != 0 {
				q = j
			}
			l.next[j] = q
		}
	}
	if l.ys[i].Type != 0 {
		return l.ys[i], nil
	}
	p, q := l.prev[i], l.next[i]
	if p < 0 || q < 0 {
		return expr.Null, nil
	}
	y1, y2 := bsonutil.AsFloat64(l.ys[p]), bsonutil.AsFloat64(l.ys[q])
	return expr.Double(y1 + (l.xs[i]-l.xs[p])*(y2-y1)/(l.xs[q]-l.xs[p])), nil
}

func (l *linearFillFunc) MemUsage() int64 {
	m := int64(len(l.xs))*(8+24+valueOverhead) + int64(len(l.prev))*16
	return m
}

// sortNumber reads a sortBy value as a number (dates as milliseconds).
func sortNumber(v bsoncore.Value, name string) (float64, error) {
	switch {
	case bsonutil.IsNumber(v.Type):
		return bsonutil.AsFloat64(v), nil
	case v.Type == bsoncore.TypeDateTime:
		return float64(v.DateTime()), nil
	}
	return 0, errs.New(errs.TypeMismatch, "%s requires the sortBy field to be numeric or a date, but found %s", name, bsonutil.TypeName(v.Type))
}
