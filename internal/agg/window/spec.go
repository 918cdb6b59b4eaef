package window

import (
	"strings"

	"github.com/lodedb/lode/internal/agg/accum"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"github.com/lodedb/lode/internal/query"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// SortInfo is the stage's sortBy as the window functions need it.
type SortInfo struct {
	*query.Sort
	// Raw is the sortBy document as given.
	Raw bsoncore.Document
	// first is the first sortBy field's path, split.
	first []string
}

// NewSortInfo wraps a parsed sortBy and its document.
func NewSortInfo(s *query.Sort, raw bsoncore.Document) *SortInfo {
	return &SortInfo{Sort: s, Raw: raw, first: strings.Split(s.Fields[0].Path, ".")}
}

// Value returns the value a range window or a function of the sortBy
// value ($derivative, $integral, $linearFill) reads from doc: the single
// sortBy field, through embedded documents only; missing when absent.
func (s *SortInfo) Value(doc bsoncore.Document) bsoncore.Value {
	return expr.GetPath(doc, s.first)
}

// Func is the state of one window function over one partition.
type Func interface {
	// Add feeds the document entering the window at its upper end.
	Add(doc bsoncore.Document) error
	// Remove drops the oldest document of the window.
	Remove() error
	// Result is the function's value for the document at position i of
	// the partition, given the current window.
	Result(i int64) (bsoncore.Value, error)
	// MemUsage is the approximate number of bytes held.
	MemUsage() int64
}

// Spec is one parsed output field's window function.
type Spec struct {
	// Name is the operator with its '$'.
	Name string
	// Bounds is the window the function sees.
	Bounds Bounds
	// raw is the operator's argument as given, for explain.
	raw bsoncore.Value
	// noWindow is set for operators that take no window field.
	noWindow bool
	// fresh returns the state of a new partition.
	fresh func(vars *expr.Vars) (Func, error)
}

// New returns the function's state for a new partition.
func (s *Spec) New(vars *expr.Vars) (Func, error) { return s.fresh(vars) }

// Render renders the output field's specification for explain, as mongod
// serializes it: {<op>: <argument>, window: {...}}, without window for
// the operators that take none.
func (s *Spec) Render() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().AppendValue(s.Name, s.raw)
	if !s.noWindow {
		b.AppendDocument("window", s.Bounds.Render())
	}
	return b.Build()
}

// ParseContext carries what parsing an output field needs.
type ParseContext struct {
	Expr *expr.ParseContext
	// SortBy is the stage's sortBy; nil when absent.
	SortBy *SortInfo
	// MaxPushBytes and MaxAddToSetBytes bound $push and $addToSet.
	MaxPushBytes, MaxAddToSetBytes int64
}

// Parse parses one output field's value, e.g. {$sum: "$x", window:
// {documents: [-1, 1]}}, with mongod's errors.
func Parse(v bsoncore.Value, pc *ParseContext) (*Spec, error) {
	d, ok := v.DocumentOK()
	if !ok {
		return nil, errs.New(errs.FailedToParse, "The field must be an object with a window function")
	}
	elems, err := d.Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "invalid window function: %v", err)
	}
	name := ""
	var arg, win bsoncore.Value
	hasWin := false
	for _, el := range elems {
		k := el.Key()
		if !strings.HasPrefix(k, "$") {
			continue
		}
		if !known(k) {
			return nil, errs.New(errs.FailedToParse, "Unrecognized window function, %s", k)
		}
		name = k
		break
	}
	if name == "" {
		first := ""
		if len(elems) > 0 {
			first = ", " + elems[0].Key()
		}
		return nil, errs.New(errs.FailedToParse, "Expected a $-prefixed window function%s", first)
	}
	seen := false
	for _, el := range elems {
		switch k := el.Key(); {
		case k == "window":
			if hasWin && perOpWindowDup(name) {
				return nil, errs.New(errs.FailedToParse, "saw multiple 'window' fields in '%s' expression", name)
			}
			hasWin, win = true, el.Value()
		case k == name && !seen:
			seen, arg = true, el.Value()
		case known(k):
			return nil, errs.New(errs.FailedToParse, "Cannot specify two functions in window function spec")
		default:
			if rankFamily[name] {
				return nil, errs.New(errs.Location5371601, "Rank style window functions take no other arguments")
			}
			return nil, errs.New(errs.FailedToParse, "Window function found an unknown argument: %s", k)
		}
	}
	s := &Spec{Name: name, raw: arg, Bounds: Unbounded}
	p := parsers[name]
	if p == nil {
		p = parseAccumulator
	}
	if err := p(s, arg, hasWin, win, pc); err != nil {
		return nil, err
	}
	return s, nil
}

func perOpWindowDup(name string) bool {
	switch name {
	case "$first", "$last", "$integral", "$firstN", "$lastN", "$minN", "$maxN", "$topN", "$bottomN", "$top", "$bottom":
		return true
	}
	return false
}

// parser fills in a Spec from the operator's argument and window.
type parser func(s *Spec, arg bsoncore.Value, hasWin bool, win bsoncore.Value, pc *ParseContext) error

var parsers map[string]parser

func init() {
	parsers = map[string]parser{
		"$rank":           parseRank,
		"$denseRank":      parseRank,
		"$documentNumber": parseRank,
		"$shift":          parseShift,
		"$expMovingAvg":   parseExpMovingAvg,
		"$derivative":     parseDerivative,
		"$integral":       parseIntegral,
		"$locf":           parseLocf,
		"$linearFill":     parseLinearFill,
		"$covariancePop":  parseCovariance,
		"$covarianceSamp": parseCovariance,
	}
}

// rankFamily are the operators whose window is implicit and that take no
// argument.
var rankFamily = map[string]bool{"$rank": true, "$denseRank": true, "$documentNumber": true}

// notWindow are accumulators mongod does not register as window
// functions.
var notWindow = map[string]bool{"$mergeObjects": true, "$accumulator": true}

// known reports whether name is a window function: the operators of this
// package and every accumulator of package accum that mongod also
// registers as a window function (so accumulators added there, such as
// $median and $percentile, work here without more code).
func known(name string) bool {
	if _, ok := parsers[name]; ok {
		return true
	}
	return accum.IsAccumulator(name) && !notWindow[name]
}

// windowOf parses the window field when given, else returns the default.
func windowOf(hasWin bool, win bsoncore.Value, pc *ParseContext) (Bounds, error) {
	if !hasWin {
		return Unbounded, nil
	}
	return parseBounds(win, pc.SortBy)
}

// parseAccumulator handles the accumulators of package accum: a
// removable implementation when there is one, else the accumulator
// recomputed over the window.
func parseAccumulator(s *Spec, arg bsoncore.Value, hasWin bool, win bsoncore.Value, pc *ParseContext) error {
	f, err := accum.New(s.Name, arg, pc.Expr)
	if err != nil {
		return err
	}
	switch s.Name {
	case "$push":
		f.MaxBytes = pc.MaxPushBytes
	case "$addToSet":
		f.MaxBytes = pc.MaxAddToSetBytes
	}
	if s.Bounds, err = windowOf(hasWin, win, pc); err != nil {
		return err
	}
	s.fresh = removable(s.Name, f, s.Bounds)
	return nil
}
