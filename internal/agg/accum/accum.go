// Package accum implements MongoDB 7.0's $group accumulators ($sum, $avg,
// $min, $max, $first, $last, $push, $addToSet, $count, $stdDevPop,
// $stdDevSamp, $mergeObjects, $top, $bottom, $topN, $bottomN, $firstN,
// $lastN, $maxN, $minN, $median, $percentile). A Factory is parsed once per accumulator field;
// it evaluates each document's input and creates one Accumulator per
// group.
package accum

import (
	"slices"
	"sort"
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Accumulator folds the input values of one group.
type Accumulator interface {
	// Add folds one input value (from Factory.Input). Missing values are
	// passed as the zero bsoncore.Value. Add copies what it retains.
	Add(v bsoncore.Value) error
	// Result returns the accumulated value.
	Result() (bsoncore.Value, error)
	// MemUsage returns the approximate bytes held.
	MemUsage() int
	// Partial returns the accumulator's state as one value, so that a
	// group can be written to disk when $group spills.
	Partial() (bsoncore.Value, error)
	// Merge folds in a state returned by Partial of an accumulator of the
	// same Factory. States must be merged in the order their inputs
	// arrived ($first, $last, $push and the N variants depend on it).
	Merge(p bsoncore.Value) error
}

// Factory is a parsed accumulator specification.
type Factory struct {
	// Name is the accumulator name with its '$'.
	Name   string
	arg    expr.Expr
	n      expr.Expr
	sortBy *expr.SortSpec
	output expr.Expr
	pct    *expr.PercentileSpec // $median, $percentile
	// MaxBytes bounds what one $push or $addToSet accumulator holds: the
	// instance's internalQueryMaxPushBytes or internalQueryMaxAddToSetBytes.
	// Past it Add fails with ExceededMemoryLimit (146). 0 means
	// DefaultMaxBytes; other accumulators ignore it.
	MaxBytes int64
	// coll, when not nil, is the collation $min, $max, $minN, $maxN,
	// $addToSet and $top/$bottom's sortBy compare strings under (the
	// parse context's Collator).
	coll *collation.Collator
}

// Collator is the collation the accumulator compares strings under (nil:
// simple).
func (f *Factory) Collator() *collation.Collator { return f.coll }

// DefaultMaxBytes is MongoDB's default internalQueryMaxPushBytes and
// internalQueryMaxAddToSetBytes (100 MB).
const DefaultMaxBytes = 100 << 20

type ctor func(f *Factory, n int64) Accumulator

var ctors = map[string]ctor{
	"$sum":          func(*Factory, int64) Accumulator { return &sumAcc{} },
	"$count":        func(*Factory, int64) Accumulator { return &sumAcc{} },
	"$avg":          func(*Factory, int64) Accumulator { return &sumAcc{avg: true} },
	"$min":          func(f *Factory, _ int64) Accumulator { return &minMaxAcc{dir: -1, coll: f.coll} },
	"$max":          func(f *Factory, _ int64) Accumulator { return &minMaxAcc{dir: 1, coll: f.coll} },
	"$first":        func(*Factory, int64) Accumulator { return &firstLastAcc{first: true} },
	"$last":         func(*Factory, int64) Accumulator { return &firstLastAcc{} },
	"$push":         func(f *Factory, _ int64) Accumulator { return &pushAcc{limit: f.MaxBytes} },
	"$addToSet":     func(f *Factory, _ int64) Accumulator { return &pushAcc{set: true, limit: f.MaxBytes, coll: f.coll} },
	"$stdDevPop":    func(*Factory, int64) Accumulator { return &stdDevAcc{} },
	"$stdDevSamp":   func(*Factory, int64) Accumulator { return &stdDevAcc{samp: true} },
	"$mergeObjects": func(*Factory, int64) Accumulator { return &mergeAcc{vals: map[string]bsoncore.Value{}} },
	"$firstN":       func(_ *Factory, n int64) Accumulator { return &firstNAcc{n: n} },
	"$lastN":        func(_ *Factory, n int64) Accumulator { return &lastNAcc{n: n} },
	"$maxN":         func(f *Factory, n int64) Accumulator { return &extremeNAcc{n: n, dir: -1, coll: f.coll} },
	"$minN":         func(f *Factory, n int64) Accumulator { return &extremeNAcc{n: n, dir: 1, coll: f.coll} },
	"$top":          func(f *Factory, _ int64) Accumulator { return &topAcc{f: f, n: 1, single: true} },
	"$bottom":       func(f *Factory, _ int64) Accumulator { return &topAcc{f: f, n: 1, single: true, bottom: true} },
	"$topN":         func(f *Factory, n int64) Accumulator { return &topAcc{f: f, n: n} },
	"$bottomN":      func(f *Factory, n int64) Accumulator { return &topAcc{f: f, n: n, bottom: true} },
	"$median":       func(f *Factory, _ int64) Accumulator { return newPercentileAcc(f) },
	"$percentile":   func(f *Factory, _ int64) Accumulator { return newPercentileAcc(f) },
}

// Names returns the supported accumulator names, sorted.
func Names() []string {
	out := make([]string, 0, len(ctors))
	for k := range ctors {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// IsAccumulator reports whether name is a known accumulator.
func IsAccumulator(name string) bool { _, ok := ctors[name]; return ok }

// New parses the argument of accumulator name (e.g. "$sum", 1).
func New(name string, args bsoncore.Value, pc *expr.ParseContext) (*Factory, error) {
	if name == "$accumulator" {
		return nil, expr.ErrJavaScript(name)
	}
	if _, ok := ctors[name]; !ok {
		return nil, errs.New(errs.UnknownGroupAccumulator, "unknown group operator '%s'", name)
	}
	f := &Factory{Name: name, coll: pc.Collator}
	switch name {
	case "$count":
		if args.Type != bsoncore.TypeEmbeddedDocument || len(args.Data) != 5 {
			return nil, errs.New(errs.Location40160, "$count takes no arguments, i.e. $count:{}")
		}
		f.arg = expr.Const(expr.Int32(1))
		return f, nil
	case "$firstN", "$lastN", "$maxN", "$minN":
		codes := firstLastCodes
		if name == "$maxN" || name == "$minN" {
			codes = minMaxCodes
		}
		raw, err := spec(name, args, codes, "input", "n")
		if err != nil {
			return nil, err
		}
		if f.arg, err = expr.Parse(raw["input"], pc); err != nil {
			return nil, err
		}
		if f.n, err = expr.Parse(raw["n"], pc); err != nil {
			return nil, err
		}
		return f, nil
	case "$top", "$bottom", "$topN", "$bottomN":
		keys := []string{"output", "sortBy"}
		if strings.HasSuffix(name, "N") {
			keys = append(keys, "n")
		}
		raw, err := spec(name, args, topBottomCodes, keys...)
		if err != nil {
			return nil, err
		}
		if raw["sortBy"].Type != bsoncore.TypeEmbeddedDocument {
			return nil, errs.New(errs.Location5788604, "%s expects a sortBy value that is an object, but got %s", name, bsonutil.TypeName(raw["sortBy"].Type))
		}
		if f.sortBy, err = expr.ParseSortSpec(raw["sortBy"]); err != nil {
			return nil, err
		}
		f.sortBy.Coll = pc.Collator
		if f.output, err = expr.Parse(raw["output"], pc); err != nil {
			return nil, err
		}
		if raw["n"].Type != 0 {
			if f.n, err = expr.Parse(raw["n"], pc); err != nil {
				return nil, err
			}
		}
		return f, nil
	}
	if args.Type == bsoncore.TypeArray {
		return nil, errs.New(errs.Location40237, "The %s accumulator is a unary operator", name)
	}
	var err error
	if name == "$median" || name == "$percentile" {
		if f.pct, err = expr.ParsePercentileSpec(name, args, pc, true); err != nil {
			return nil, err
		}
		f.arg = f.pct.Input
		return f, nil
	}
	if f.arg, err = expr.Parse(args, pc); err != nil {
		return nil, err
	}
	return f, nil
}

// nCodes are the parse error codes of one family of n-accumulators.
type nCodes struct{ notObject, unknown, missingN, missingInput errs.Code }

var (
	// $firstN, $lastN (mongod's parseFirstLastN).
	firstLastCodes = nCodes{errs.Location5787801, errs.Location5787901, errs.Location5787906, errs.Location5787907}
	// $minN, $maxN (parseMinMaxN): their own code for a non-object.
	minMaxCodes = nCodes{errs.Code(5787900), errs.Location5787901, errs.Location5787906, errs.Location5787907}
	// $top, $bottom, $topN, $bottomN (accumulatorNParseArgs); a missing
	// output is missingInput, a missing sortBy 5788005.
	topBottomCodes = nCodes{errs.Code(5788001), errs.Code(5788002), errs.Code(5788003), errs.Code(5788004)}
)

func spec(name string, args bsoncore.Value, codes nCodes, keys ...string) (map[string]bsoncore.Value, error) {
	if args.Type != bsoncore.TypeEmbeddedDocument {
		return nil, errs.New(codes.notObject, "specification must be an object; found %s", bsonutil.TypeName(args.Type))
	}
	raw := map[string]bsoncore.Value{}
	elems, _ := args.Document().Elements()
	for _, el := range elems {
		ok := false
		for _, k := range keys {
			ok = ok || k == el.Key()
		}
		if !ok {
			return nil, errs.New(codes.unknown, "Unknown argument for 'n' operator: %s", el.Key())
		}
		raw[el.Key()] = el.Value()
	}
	for _, k := range []string{"n", "input", "output", "sortBy"} {
		if !slices.Contains(keys, k) || raw[k].Type != 0 {
			continue
		}
		switch k {
		case "n":
			return nil, errs.New(codes.missingN, "Missing value for 'n'")
		case "input", "output":
			return nil, errs.New(codes.missingInput, "Missing value for '%s'", k)
		}
		return nil, errs.New(errs.Location5788005, "Missing value for '%s'", k)
	}
	return raw, nil
}

// Input evaluates the accumulator's input for one document; pass the
// result to Accumulator.Add.
func (f *Factory) Input(doc bsoncore.Document, vars *expr.Vars) (bsoncore.Value, error) {
	if f.sortBy == nil {
		return f.arg.Eval(doc, vars)
	}
	out, err := f.output.Eval(doc, vars)
	if err != nil {
		return expr.Missing, err
	}
	if out.Type == 0 {
		out = expr.Null
	}
	b := expr.NewArrayBuilder()
	d := bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc}
	for i := range f.sortBy.Dirs {
		k := f.sortBy.Key(d, i)
		if k.Type == 0 {
			k = bsoncore.Value{Type: bsoncore.TypeMinKey} // empty array: before null
		}
		b.Append(k)
	}
	b.Append(out)
	return b.Value(), nil
}

// NewAccumulator creates the accumulator of one group. groupKey is the
// document against which 'n' is evaluated: the group key when it is a
// document, an empty document otherwise.
func (f *Factory) NewAccumulator(groupKey bsoncore.Document, vars *expr.Vars) (Accumulator, error) {
	n := int64(1)
	if f.n != nil {
		nv, err := f.n.Eval(groupKey, vars)
		if err != nil {
			return nil, err
		}
		if n, err = expr.CheckN(f.Name, nv); err != nil {
			return nil, err
		}
	}
	return ctors[f.Name](f, n), nil
}

// copyVal copies a value's bytes so it no longer aliases its source.
func copyVal(v bsoncore.Value) bsoncore.Value {
	return bsoncore.Value{Type: v.Type, Data: append([]byte(nil), v.Data...)}
}

const valOverhead = 32
