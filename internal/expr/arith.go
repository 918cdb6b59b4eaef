package expr

import (
	"math"
	"math/big"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func init() {
	register(map[string]opParser{
		"$add": parseAdd, "$subtract": parseSubtract, "$multiply": parseMultiply,
		"$divide": parseDivide, "$mod": parseMod, "$abs": unaryNum(absOp),
		"$ceil": unaryNum(ceilOp), "$floor": unaryNum(floorOp),
		"$sqrt": unaryNum(sqrtOp), "$exp": unaryNum(expOp), "$ln": unaryNum(lnOp),
		"$log10": unaryNum(log10Op), "$pow": parsePow, "$log": parseLog,
		"$round": parseRoundTrunc(true), "$trunc": parseRoundTrunc(false),
	})
}

func parseAdd(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		// As mongod: the numbers before the date add as numbers; from the
		// date on, the total is the date's milliseconds in int64, and each
		// later number joins it rounded to an integer, all overflow-checked.
		acc := Int32(0)
		date := false
		var ms int64
		overflow := errs.New(errs.Overflow, "date overflow in $add")
		for _, e := range es {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			switch {
			case IsNullish(v):
				return Null, nil
			case v.Type == bsoncore.TypeDateTime:
				if date {
					return Missing, errs.New(errs.Location16612, "only one date allowed in an $add expression")
				}
				date = true
				n, ok := roundToInt64(acc)
				if ms, ok = add64ok(v.DateTime(), n, ok); !ok {
					return Missing, overflow
				}
			case isNum(v):
				if !date {
					acc = NumAdd(acc, v)
					break
				}
				n, ok := roundToInt64(v)
				if ms, ok = add64ok(ms, n, ok); !ok {
					return Missing, overflow
				}
			default:
				return Missing, errs.New(errs.Location16554, "$add only supports numeric or date types, not %s", bsonutil.TypeName(v.Type))
			}
		}
		if date {
			return Date(ms), nil
		}
		return acc, nil
	}), nil
}

// roundToInt64 rounds a number to the nearest int64: a double half away
// from zero, a decimal half to even (mongod's rounding of each for a
// date's milliseconds); false when it does not fit or is NaN.
func roundToInt64(v bsoncore.Value) (int64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return bsonutil.AsInt64(v), true
	case bsoncore.TypeDecimal128:
		d := toDec(v)
		if d.special() {
			return 0, false
		}
		q := decQuantize(d, 0, roundHalfEven)
		c := q.c
		if q.e > 0 {
			c = new(big.Int).Mul(c, new(big.Int).Exp(bigTen, big.NewInt(int64(q.e)), nil))
		}
		if !c.IsInt64() {
			return 0, false
		}
		return c.Int64(), true
	}
	f := math.Round(asF(v))
	return float64ToInt64(f)
}

// add64ok is a+b when ok and the sum fits in int64.
func add64ok(a, b int64, ok bool) (int64, bool) {
	s := a + b
	if !ok || (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
		return 0, false
	}
	return s, true
}

func parseSubtract(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 2)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		a, err := es[0].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		b, err := es[1].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(a) || IsNullish(b) {
			return Null, nil
		}
		switch {
		case isNum(a) && isNum(b):
			return NumSub(a, b), nil
		case a.Type == bsoncore.TypeDateTime && b.Type == bsoncore.TypeDateTime:
			return Int64(a.DateTime() - b.DateTime()), nil
		case a.Type == bsoncore.TypeDateTime && isNum(b):
			ms, ok := roundToInt64(b)
			r := a.DateTime() - ms
			if !ok || (a.DateTime() >= 0) != (ms >= 0) && (r >= 0) != (a.DateTime() >= 0) {
				return Missing, errs.New(errs.Overflow, "date overflow in $subtract")
			}
			return Date(r), nil
		}
		return Missing, errs.New(errs.Location16556, "cant $subtract a %s from a %s", bsonutil.TypeName(b.Type), bsonutil.TypeName(a.Type))
	}), nil
}

func parseMultiply(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseArgs(args, pc)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		acc := Int32(1)
		for _, e := range es {
			v, err := e.Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			if IsNullish(v) {
				return Null, nil
			}
			if !isNum(v) {
				return Missing, errs.New(errs.Location16555, "$multiply only supports numeric types, not %s", bsonutil.TypeName(v.Type))
			}
			acc = NumMul(acc, v)
		}
		return acc, nil
	}), nil
}

// binaryNum parses a two-argument numeric operator; null/missing gives null.
func binaryNum(name string, args bsoncore.Value, pc *ParseContext, f func(a, b bsoncore.Value) (bsoncore.Value, error)) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 2)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		a, err := es[0].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		b, err := es[1].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(a) || IsNullish(b) {
			return Null, nil
		}
		return f(a, b)
	}), nil
}

func parseDivide(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	return binaryNum(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		if !isNum(a) || !isNum(b) {
			return Missing, errs.New(errs.Location16609, "$divide only supports numeric types, not %s and %s", bsonutil.TypeName(a.Type), bsonutil.TypeName(b.Type))
		}
		if numIsZero(b) {
			return Missing, errs.New(errs.BadValue, "can't $divide by zero")
		}
		if a.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128 {
			return decDiv(toDec(a), toDec(b)).value(), nil
		}
		return Double(asF(a) / asF(b)), nil
	})
}

func parseMod(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	return binaryNum(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		if !isNum(a) || !isNum(b) {
			return Missing, errs.New(errs.Location16611, "$mod only supports numeric types, not %s and %s", bsonutil.TypeName(a.Type), bsonutil.TypeName(b.Type))
		}
		if numIsZero(b) {
			return Missing, errs.New(errs.Location16610, "can't $mod by zero")
		}
		k := max(numKind(a.Type), numKind(b.Type))
		if k == kDecimal {
			x, y := toDec(a), toDec(b)
			// IEEE 754's remainder, as mongod's Decimal128 takes it: NaN
			// for a NaN or an infinite dividend, the dividend itself over
			// an infinite divisor, and a zero carries the dividend's sign
			// ({$mod: [NumberDecimal("-5"), 5]} is -0).
			if x.nan || y.nan || x.inf != 0 {
				return dec{nan: true}.value(), nil
			}
			if y.inf != 0 {
				return a, nil
			}
			ac, bc, e := align(x, y)
			r := new(big.Int).Rem(ac, bc)
			v := dec{c: r, e: e}.value()
			if r.Sign() == 0 && (ac.Sign() < 0 || (ac.Sign() == 0 && x.neg)) {
				h, l := v.Decimal128()
				v = DecimalValue(bson.NewDecimal128(h|1<<63, l))
			}
			return v, nil
		}
		// As mongod: a double dividend, or a double divisor that is not
		// an exact 32-bit integer, takes fmod; an integral double
		// divisor keeps the dividend's integer type ({$mod: [NumberInt(8),
		// 3.0]} is the int 2).
		if a.Type == bsoncore.TypeDouble || (b.Type == bsoncore.TypeDouble && !isInt32Valued(b.Double())) {
			return Double(math.Mod(asF(a), asF(b))), nil
		}
		k = max(numKind(a.Type), kInt32)
		if b.Type == bsoncore.TypeInt64 {
			k = kInt64
		}
		x, y := bsonutil.AsInt64(a), bsonutil.AsInt64(b)
		if b.Type == bsoncore.TypeDouble {
			y = int64(b.Double())
		}
		if y == -1 {
			return mkInt(0, k), nil
		}
		return mkInt(x%y, k), nil
	})
}

// isInt32Valued reports whether f is an integer that an int32 holds.
func isInt32Valued(f float64) bool {
	return f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32
}

// unaryNum builds a one-argument numeric operator.
func unaryNum(f func(name string, v bsoncore.Value) (bsoncore.Value, error)) opParser {
	return unaryNullable(numericOnly(f))
}

func absOp(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	switch v.Type {
	case bsoncore.TypeInt32:
		i := int64(v.Int32())
		if i < 0 {
			i = -i
		}
		return mkInt(i, kInt32), nil
	case bsoncore.TypeInt64:
		i := v.Int64()
		if i == math.MinInt64 {
			return Missing, errs.New(errs.Location28680, "can't take $abs of long long min")
		}
		if i < 0 {
			i = -i
		}
		return Int64(i), nil
	case bsoncore.TypeDouble:
		return Double(math.Abs(v.Double())), nil
	}
	d := toDec(v)
	if d.nan {
		return v, nil
	}
	if d.inf != 0 {
		return dec{inf: 1}.value(), nil
	}
	return dec{c: new(big.Int).Abs(d.c), e: d.e}.value(), nil
}

func ceilOp(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	switch v.Type {
	case bsoncore.TypeDouble:
		return Double(math.Ceil(v.Double())), nil
	case bsoncore.TypeDecimal128:
		return decQuantize(toDec(v), 0, roundCeil).value(), nil
	}
	return v, nil
}

func floorOp(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	switch v.Type {
	case bsoncore.TypeDouble:
		return Double(math.Floor(v.Double())), nil
	case bsoncore.TypeDecimal128:
		return decQuantize(toDec(v), 0, roundFloor).value(), nil
	}
	return v, nil
}

// floatFn applies f in float64, returning decimal for decimal input.
func floatFn(v bsoncore.Value, f func(float64) float64) bsoncore.Value {
	r := f(asF(v))
	if v.Type == bsoncore.TypeDecimal128 {
		return decFromFloat(r).value()
	}
	return Double(r)
}

func sqrtOp(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	if x := asF(v); x < 0 {
		return Missing, errs.New(errs.Location28714, "$sqrt's argument must be greater than or equal to 0")
	}
	if v.Type == bsoncore.TypeDecimal128 {
		return decSqrtValue(v), nil
	}
	return floatFn(v, math.Sqrt), nil
}

func expOp(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	if v.Type == bsoncore.TypeDecimal128 {
		return decExpValue(v), nil
	}
	return floatFn(v, math.Exp), nil
}

func lnOp(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	if x := asF(v); !(x > 0) && !math.IsNaN(x) {
		return Missing, errs.New(errs.Location28766, "$ln's argument must be a positive number, but is %s", bsonutil.FormatValue(v, msgStyle))
	}
	if v.Type == bsoncore.TypeDecimal128 {
		return decLnValue(v), nil
	}
	return floatFn(v, math.Log), nil
}

func log10Op(_ string, v bsoncore.Value) (bsoncore.Value, error) {
	if x := asF(v); !(x > 0) && !math.IsNaN(x) {
		return Missing, errs.New(errs.Location28761, "$log10's argument must be a positive number, but is %s", bsonutil.FormatValue(v, msgStyle))
	}
	if v.Type == bsoncore.TypeDecimal128 {
		return decLog10Value(v), nil
	}
	return floatFn(v, math.Log10), nil
}

func parseLog(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	return binaryNum(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		if !isNum(a) {
			return Missing, errs.New(errs.Location28756, "$log's argument must be numeric, not %s", bsonutil.TypeName(a.Type))
		}
		if !isNum(b) {
			return Missing, errs.New(errs.Location28757, "$log's base must be numeric, not %s", bsonutil.TypeName(b.Type))
		}
		x, y := asF(a), asF(b)
		if (a.Type == bsoncore.TypeDouble && math.IsNaN(x)) || (b.Type == bsoncore.TypeDouble && math.IsNaN(y)) {
			return Double(math.NaN()), nil // a double NaN argument or base is NaN, as in mongod
		}
		if !(x > 0) {
			return Missing, errs.New(errs.Location28758, "$log's argument must be a positive number, but is %s", bsonutil.FormatValue(a, msgStyle))
		}
		if !(y > 0) || y == 1 {
			return Missing, errs.New(errs.Location28759, "$log's base must be a positive number not equal to 1, but is %s", bsonutil.FormatValue(b, msgStyle))
		}
		if a.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128 {
			return decLogValue(a, b), nil
		}
		r := math.Log(x) / math.Log(y)
		return Double(r), nil
	})
}

func parsePow(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	return binaryNum(name, args, pc, func(a, b bsoncore.Value) (bsoncore.Value, error) {
		if !isNum(a) {
			return Missing, errs.New(errs.Location28762, "$pow's base must be numeric, not %s", bsonutil.TypeName(a.Type))
		}
		if !isNum(b) {
			return Missing, errs.New(errs.Location28763, "$pow's exponent must be numeric, not %s", bsonutil.TypeName(b.Type))
		}
		if numIsZero(a) && asF(b) < 0 {
			return Missing, errs.New(errs.Location28764, "$pow cannot take a base of 0 and a negative exponent")
		}
		k := max(numKind(a.Type), numKind(b.Type))
		if k == kDecimal {
			return decPowValue(a, b), nil
		}
		if k == kDouble {
			return Double(math.Pow(asF(a), asF(b))), nil
		}
		base, exp := bsonutil.AsInt64(a), bsonutil.AsInt64(b)
		if exp < 0 {
			switch base {
			case 1:
				return mkInt(1, k), nil
			case -1:
				if exp%2 == 0 {
					return mkInt(1, k), nil
				}
				return mkInt(-1, k), nil
			}
			return Double(math.Pow(float64(base), float64(exp))), nil
		}
		r := int64(1)
		for i := int64(0); i < exp; i++ {
			var ok bool
			if r, ok = mul64(r, base); !ok {
				return Double(math.Pow(float64(base), float64(exp))), nil
			}
			if r == 0 || r == 1 && base == 1 {
				break
			}
		}
		return mkInt(r, k), nil
	})
}

// Rounding modes for decQuantize.
const (
	roundHalfEven = iota
	roundTrunc
	roundCeil
	roundFloor
)

// decQuantize rounds d to `place` decimal places.
func decQuantize(d dec, place int, mode int) dec {
	if d.special() || -d.e <= place {
		return d
	}
	drop := -d.e - place
	p := new(big.Int).Exp(bigTen, big.NewInt(int64(drop)), nil)
	q, r := new(big.Int).QuoRem(d.c, p, new(big.Int))
	if r.Sign() != 0 {
		switch mode {
		case roundHalfEven:
			twice := new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2))
			c := twice.Cmp(p)
			if c > 0 || (c == 0 && q.Bit(0) == 1) {
				q.Add(q, big.NewInt(int64(r.Sign())))
			}
		case roundCeil:
			if r.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			}
		case roundFloor:
			if r.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			}
		}
	}
	return dec{c: q, e: -place}
}

func parseRoundTrunc(round bool) opParser {
	return func(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
		es, err := parseN(name, args, pc, 1, 2)
		if err != nil {
			return nil, err
		}
		return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
			v, err := es[0].Eval(doc, vars)
			if err != nil {
				return Missing, err
			}
			place := int64(0)
			if len(es) == 2 {
				p, err := es[1].Eval(doc, vars)
				if err != nil {
					return Missing, err
				}
				if IsNullish(p) {
					return Null, nil
				}
				var ok bool
				if place, ok = asIntegral(p); !ok {
					return Missing, errs.New(errs.Location51082, "precision argument to  %s must be a integral value", name)
				}
				if place < -20 || place > 100 {
					return Missing, errs.New(errs.Location51083, "cannot apply %s with precision value %d value must be in [-20, 100]", name, place)
				}
			}
			if IsNullish(v) {
				return Null, nil
			}
			if !isNum(v) {
				return Missing, errs.New(errs.Location51081, "%s only supports numeric types, not %s", name, bsonutil.TypeName(v.Type))
			}
			return roundValue(name, v, int(place), round)
		}), nil
	}
}

func roundValue(name string, v bsoncore.Value, place int, round bool) (bsoncore.Value, error) {
	mode := roundTrunc
	if round {
		mode = roundHalfEven
	}
	switch v.Type {
	case bsoncore.TypeDecimal128:
		d := toDec(v)
		if !d.special() && place > -d.e {
			// mongod quantizes to the precision asked: trailing zeros,
			// as many as 34 digits hold.
			extra := min(place+d.e, 34-len(new(big.Int).Abs(d.c).String()))
			if extra > 0 {
				d = dec{c: new(big.Int).Mul(d.c, new(big.Int).Exp(bigTen, big.NewInt(int64(extra)), nil)), e: d.e - extra, neg: d.neg}
			}
			return d.value(), nil
		}
		return decQuantize(d, place, mode).value(), nil
	case bsoncore.TypeDouble:
		x := v.Double()
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return v, nil
		}
		// exact decimal arithmetic on the double's shortest representation
		r := decQuantize(decFromFloat(x), place, mode)
		return Double(r.float()), nil
	}
	if place >= 0 {
		return v, nil
	}
	i := bsonutil.AsInt64(v)
	r := decQuantize(dec{c: big.NewInt(i), e: 0}, place, mode)
	f := new(big.Int).Mul(r.c, new(big.Int).Exp(bigTen, big.NewInt(int64(-place)), nil))
	if !f.IsInt64() {
		if v.Type == bsoncore.TypeInt64 {
			return Missing, errs.New(errs.Code(51080), "invalid conversion to long in %s: %d rounded at precision %d does not fit", name, i, place)
		}
		return Double(r.float()), nil
	}
	return mkInt(f.Int64(), numKind(v.Type)), nil
}
