package expr

import (
	"math"
	"sort"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// This file holds $median and $percentile: the specification both share
// with their accumulator forms (package accum), and the expression forms,
// which compute discrete percentiles over an array (mongod 7.0 does not
// build a t-digest for expressions either).

func init() {
	register(map[string]opParser{"$median": parsePercentileExpr, "$percentile": parsePercentileExpr})
}

// PercentileApproximate is the only percentile method mongod 7.0 accepts.
const PercentileApproximate = "approximate"

// PercentileSpec is a parsed {input, p, method} argument of $percentile, or
// {input, method} of $median (whose Ps is [0.5]).
type PercentileSpec struct {
	// Input is the expression whose numeric values are ranked.
	Input Expr
	// Ps are the requested percentiles, each in [0, 1].
	Ps []float64
	// Median is set for $median, whose result is one value, not an array.
	Median bool
}

// ParsePercentileSpec parses the argument of $median or $percentile (name
// with its '$'). accumulator selects the codes mongod uses in $group
// position (7436100, 7429703) over those of the expression (7436201,
// 7436200) for a non-document argument. Fields are checked as mongod's
// IDL parser does: unknown and duplicate fields and a bad method while
// reading, then the missing ones in declaration order (input, p,
// method), then p's values.
func ParsePercentileSpec(name string, args bsoncore.Value, pc *ParseContext, accumulator bool) (*PercentileSpec, error) {
	median := name == "$median"
	if args.Type != bsoncore.TypeEmbeddedDocument {
		code := errs.Location7436200
		switch {
		case median && accumulator:
			code = errs.Location7436100
		case median:
			code = errs.Location7436201
		case accumulator:
			code = errs.Location7429703
		}
		return nil, errs.New(code, "specification must be an object; found %s", bsonutil.FormatElem(name, args, bsonutil.Style{}))
	}
	elems, err := args.Document().Elements()
	if err != nil {
		return nil, errs.New(errs.InvalidBSON, "%s: %v", name, err)
	}
	var input, p, method bsoncore.Value
	for _, el := range elems {
		var slot *bsoncore.Value
		switch el.Key() {
		case "input":
			slot = &input
		case "method":
			slot = &method
		case "p":
			if !median {
				slot = &p
			}
		}
		if slot == nil {
			return nil, errs.New(errs.Location40415, "BSON field '%s.%s' is an unknown field.", name, el.Key())
		}
		if slot.Type != 0 {
			return nil, errs.New(errs.Location40413, "BSON field '%s.%s' is a duplicate field", name, el.Key())
		}
		*slot = el.Value()
		if slot == &method {
			if method.Type != bsoncore.TypeString {
				return nil, errs.New(errs.TypeMismatch, "BSON field '%s.method' is the wrong type '%s', expected type 'string'", name, bsonutil.TypeName(method.Type))
			}
			if method.StringValue() != PercentileApproximate {
				return nil, errs.New(errs.BadValue, "Currently only 'approximate' can be used as percentile 'method'.")
			}
		}
	}
	missing := func(f string) error {
		return errs.New(errs.Location40414, "BSON field '%s.%s' is missing but a required field", name, f)
	}
	switch {
	case input.Type == 0:
		return nil, missing("input")
	case !median && p.Type == 0:
		return nil, missing("p")
	case method.Type == 0:
		return nil, missing("method")
	}
	spec := &PercentileSpec{Median: median, Ps: []float64{0.5}}
	if spec.Input, err = Parse(input, pc); err != nil {
		return nil, err
	}
	if !median {
		if spec.Ps, err = parsePercentiles(p, pc); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// parsePercentiles checks $percentile's p: a constant array of numbers
// in [0, 1].
func parsePercentiles(p bsoncore.Value, pc *ParseContext) ([]float64, error) {
	e, err := Parse(p, pc)
	if err != nil {
		return nil, err
	}
	pv, ok := IsConst(e)
	if !ok {
		return nil, errs.New(errs.Location7750300, "The $percentile 'p' field must be an array of constant values, but found value: %s.", bsonutil.FormatValue(p, bsonutil.Style{}))
	}
	const msg = "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: "
	if pv.Type != bsoncore.TypeArray || len(values(pv)) == 0 {
		return nil, errs.New(errs.Location7750301, "%s%s", msg, bsonutil.FormatValue(pv, bsonutil.Style{}))
	}
	var ps []float64
	for _, v := range values(pv) {
		if !isNum(v) {
			return nil, errs.New(errs.Location7750302, "%s%s", msg, bsonutil.FormatValue(v, bsonutil.Style{}))
		}
		f := asF(v)
		if f < 0 || f > 1 {
			return nil, errs.New(errs.Location7750303, "%s%s", msg, cppDouble(f))
		}
		ps = append(ps, f)
	}
	return ps, nil
}

// PercentileRank is the 0-based rank of percentile p among n sorted
// values: the smallest value with at least p·n values at or below it
// (ceil(p·n) - 1, at least 0; the last value for p = 1).
func PercentileRank(n int, p float64) int {
	if p >= 1 {
		return n - 1
	}
	r := int(math.Ceil(float64(n)*p)) - 1
	if r < 0 {
		return 0
	}
	return r
}

// DiscretePercentiles returns the values of sorted (ascending, no NaN)
// at each percentile of ps; nil when sorted is empty.
func DiscretePercentiles(sorted []float64, ps []float64) []float64 {
	if len(sorted) == 0 {
		return nil
	}
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = sorted[PercentileRank(len(sorted), p)]
	}
	return out
}

// PercentileInput converts one input value to the double it contributes,
// reporting false for values $median and $percentile ignore: every
// non-number, and NaN.
func PercentileInput(v bsoncore.Value) (float64, bool) {
	if !isNum(v) {
		return 0, false
	}
	f := asF(v)
	return f, !math.IsNaN(f)
}

// Result formats computed percentiles (nil when there was no input) as
// mongod does: a double (or null) for $median, an array of doubles (or
// of nulls) for $percentile.
func (s *PercentileSpec) Result(pctls []float64) bsoncore.Value {
	if s.Median {
		if len(pctls) == 0 {
			return Null
		}
		return Double(pctls[0])
	}
	b := NewArrayBuilder()
	for i := range s.Ps {
		if len(pctls) == 0 {
			b.Append(Null)
		} else {
			b.Append(Double(pctls[i]))
		}
	}
	return b.Value()
}

// parsePercentileExpr parses the expression forms: a number yields itself
// for every percentile, an array the discrete percentiles of its numeric
// elements, anything else null(s).
func parsePercentileExpr(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	spec, err := ParsePercentileSpec(name, args, pc, false)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		v, err := spec.Input.Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if isNum(v) {
			f := asF(v)
			out := make([]float64, len(spec.Ps))
			for i := range out {
				out[i] = f
			}
			return spec.Result(out), nil
		}
		if v.Type != bsoncore.TypeArray {
			return spec.Result(nil), nil
		}
		var xs []float64
		forEach(v.Data, func(_ []byte, x bsoncore.Value) bool {
			if f, ok := PercentileInput(x); ok {
				xs = append(xs, f)
			}
			return true
		})
		sort.Float64s(xs)
		return spec.Result(DiscretePercentiles(xs, spec.Ps)), nil
	}), nil
}

// Name returns the operator's name: "$median" or "$percentile".
func (s *PercentileSpec) Name() string {
	if s.Median {
		return "$median"
	}
	return "$percentile"
}
