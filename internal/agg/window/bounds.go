package window

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Bounds is a window: documents-based ([Lo, Hi] positions relative to the
// current document) or range-based ([LoV, HiV] offsets from the current
// document's sortBy value, in Unit when set). "current" is the offset 0.
type Bounds struct {
	Range        bool
	LoUnb, HiUnb bool
	Lo, Hi       int64
	LoV, HiV     bsoncore.Value
	// loCur and hiCur remember "current" for rendering.
	loCur, hiCur bool
	Unit         string
}

// Unbounded is the default window: the whole partition.
var Unbounded = Bounds{LoUnb: true, HiUnb: true}

// toCurrent is the [unbounded, current] window of the rank family.
var toCurrent = Bounds{LoUnb: true}

// LoCurrent and HiCurrent report a "current" bound: in a range window it
// is the current document's position, not its value (ties after it are
// outside a window whose upper bound is "current").
func (b Bounds) LoCurrent() bool { return b.loCur }

// HiCurrent: see LoCurrent.
func (b Bounds) HiCurrent() bool { return b.hiCur }

// IsUnbounded reports whether the window is the whole partition.
func (b Bounds) IsUnbounded() bool { return b.LoUnb && b.HiUnb }

// parseBounds parses the 'window' field of an output (mongod's
// WindowBounds::parse) given the stage's sortBy (nil when absent).
func parseBounds(v bsoncore.Value, sortBy *SortInfo) (Bounds, error) {
	if v.Type != bsoncore.TypeEmbeddedDocument {
		return Bounds{}, errs.New(errs.FailedToParse, "'window' field must be an object")
	}
	d := v.Document()
	docs, hasDocs := lookup(d, "documents")
	rng, hasRange := lookup(d, "range")
	unit, hasUnit := lookup(d, "unit")
	n, _ := bsonutil.CountElements(d)
	if hasDocs && hasRange {
		return Bounds{}, errs.New(errs.FailedToParse, "Window bounds can specify either 'documents' or 'unit', not both.")
	}
	if !hasRange && hasUnit {
		return Bounds{}, errs.New(errs.FailedToParse, "Window bounds can only specify 'unit' with range-based bounds.")
	}
	if !hasRange && !hasDocs {
		if n != 0 {
			return Bounds{}, errs.New(errs.FailedToParse, "'window' field can only contain 'documents' as the only argument or 'range' with an optional 'unit' field")
		}
		return Unbounded, nil
	}
	unpack := func(e bsoncore.Value) (bsoncore.Value, bsoncore.Value, error) {
		if e.Type == bsoncore.TypeArray {
			vals, _ := e.Array().Values()
			if len(vals) == 2 {
				return vals[0], vals[1], nil
			}
		}
		return bsoncore.Value{}, bsoncore.Value{}, errs.New(errs.FailedToParse, "Window bounds must be a 2-element array: %s: %s", boundsName(hasDocs), bsonutil.FormatValue(e, bsonutil.Style{}))
	}
	var b Bounds
	if hasDocs {
		if n != 1 {
			return Bounds{}, errs.New(errs.FailedToParse, "'window' field that specifies documents cannot have other fields")
		}
		lo, hi, err := unpack(docs)
		if err != nil {
			return Bounds{}, err
		}
		if b.LoUnb, b.loCur, b.Lo, err = docBound(lo); err != nil {
			return Bounds{}, err
		}
		if b.HiUnb, b.hiCur, b.Hi, err = docBound(hi); err != nil {
			return Bounds{}, err
		}
		if !b.LoUnb && !b.HiUnb && b.Lo > b.Hi {
			return Bounds{}, errs.New(errs.Location5339900, "Lower bound must not exceed upper bound: [%d, %d]", b.Lo, b.Hi)
		}
		if !b.IsUnbounded() && sortBy == nil {
			return Bounds{}, errs.New(errs.Location5339901, "Document-based bounds require a sortBy")
		}
		return b, nil
	}
	b.Range = true
	lo, hi, err := unpack(rng)
	if err != nil {
		return Bounds{}, err
	}
	if hasUnit {
		if n != 2 {
			return Bounds{}, errs.New(errs.FailedToParse, "'window' field that specifies unit cannot have other fields besides 'range'")
		}
		if unit.Type != bsoncore.TypeString {
			return Bounds{}, errs.New(errs.FailedToParse, "'unit' must be a string")
		}
		b.Unit = unit.StringValue()
		if !expr.ValidTimeUnit(b.Unit) {
			return Bounds{}, errs.New(errs.FailedToParse, "unknown time unit value: %s", b.Unit)
		}
	} else if n != 1 {
		return Bounds{}, errs.New(errs.FailedToParse, "'window' field that specifies range cannot have other fields besides 'unit'")
	}
	if b.LoUnb, b.loCur, b.LoV, err = rangeBound(lo, hasUnit); err != nil {
		return Bounds{}, err
	}
	if b.HiUnb, b.hiCur, b.HiV, err = rangeBound(hi, hasUnit); err != nil {
		return Bounds{}, err
	}
	if !b.LoUnb && !b.HiUnb && bsonutil.Compare(b.LoV, b.HiV) > 0 {
		return Bounds{}, errs.New(errs.Location5339900, "Lower bound must not exceed upper bound: [%s, %s]",
			bsonutil.FormatValue(b.LoV, bsonutil.Style{}), bsonutil.FormatValue(b.HiV, bsonutil.Style{}))
	}
	if sortBy == nil || len(sortBy.Fields) != 1 {
		return Bounds{}, errs.New(errs.Location5339902, "Range-based bounds require sortBy a single field")
	}
	if sortBy.Fields[0].Desc {
		// mongod 7.0 scans range windows as if ascending; later versions
		// refuse a descending sortBy (8947401). Refused rather than
		// reproduced.
		return Bounds{}, errs.New(errs.NotImplemented, "range-based window bounds over a descending sortBy are not supported")
	}
	return b, nil
}

func boundsName(docs bool) string {
	if docs {
		return "documents"
	}
	return "range"
}

// special parses "unbounded" and "current"; ok is false for other values.
func special(v bsoncore.Value) (unb, cur bool, err error) {
	if v.Type != bsoncore.TypeString {
		return false, false, nil
	}
	switch v.StringValue() {
	case "unbounded":
		return true, false, nil
	case "current":
		return false, true, nil
	}
	return false, false, errs.New(errs.FailedToParse, "Window bounds must be 'unbounded', 'current', or a number.")
}

// constBound evaluates a bound that must be a constant expression.
func constBound(v bsoncore.Value) (bsoncore.Value, error) {
	c, ok, err := constant(v, expr.NewParseContext())
	if err != nil {
		return bsoncore.Value{}, err
	}
	if !ok {
		return bsoncore.Value{}, errs.New(errs.FailedToParse, "Window bounds expression must be a constant.")
	}
	return c, nil
}

func docBound(v bsoncore.Value) (unb, cur bool, n int64, err error) {
	if unb, cur, err = special(v); err != nil || unb || cur {
		return unb, cur, 0, err
	}
	c, err := constBound(v)
	if err != nil {
		return false, false, 0, err
	}
	i, ok := integral(c)
	if !ok {
		return false, false, 0, errs.New(errs.FailedToParse, "Numeric document-based bounds must be an integer")
	}
	return false, false, i, nil
}

func rangeBound(v bsoncore.Value, withUnit bool) (unb, cur bool, n bsoncore.Value, err error) {
	if unb, cur, err = special(v); err != nil || unb {
		return unb, cur, bsoncore.Value{}, err
	}
	if cur {
		return false, true, expr.Int32(0), nil
	}
	c, err := constBound(v)
	if err != nil {
		return false, false, bsoncore.Value{}, err
	}
	if withUnit {
		if _, ok := integral(c); !ok {
			return false, false, bsoncore.Value{}, errs.New(errs.FailedToParse, "With 'unit', range-based bounds must be an integer")
		}
	} else if !bsonutil.IsNumber(c.Type) {
		return false, false, bsoncore.Value{}, errs.New(errs.FailedToParse, "Range-based bounds expression must be a number")
	}
	return false, false, c, nil
}

// integral returns v as an integer when it is a number with no fraction.
func integral(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil.AsInt64(v), true
	case bsoncore.TypeDouble, bsoncore.TypeDecimal128:
		f := bsonutil.AsFloat64(v)
		if f != float64(int64(f)) {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

func lookup(d bsoncore.Document, k string) (bsoncore.Value, bool) {
	v, err := d.LookupErr(k)
	return v, err == nil
}

// Render appends the window as mongod's explain prints it.
func (b Bounds) Render() bsoncore.Document {
	bound := func(unb, cur bool, n int64, v bsoncore.Value, rng bool) bsoncore.Value {
		switch {
		case unb:
			return expr.String("unbounded")
		case cur:
			return expr.String("current")
		case rng:
			return v
		}
		if n == int64(int32(n)) {
			return expr.Int32(int32(n))
		}
		return expr.Int64(n)
	}
	key := "documents"
	if b.Range {
		key = "range"
	}
	db := bsoncore.NewDocumentBuilder().AppendArray(key, expr.Array(
		bound(b.LoUnb, b.loCur, b.Lo, b.LoV, b.Range),
		bound(b.HiUnb, b.hiCur, b.Hi, b.HiV, b.Range)).Array())
	if b.Unit != "" {
		db.AppendString("unit", b.Unit)
	}
	return db.Build()
}
