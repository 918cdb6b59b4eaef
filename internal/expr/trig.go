package expr

import (
	"math"
	"math/big"
	"strconv"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The trigonometry operators. Integers and doubles give a double,
// decimals a decimal (see decmath.go); null or missing gives null, NaN
// gives NaN back. $sin, $cos and $tan refuse the infinities and $asin,
// $acos, $atanh and $acosh values outside their domains, with mongod's
// 50989.

func init() {
	register(map[string]opParser{
		"$sin":              trigOp(trigSin),
		"$cos":              trigOp(trigCos),
		"$tan":              trigOp(trigTan),
		"$asin":             trigOp(trigAsin),
		"$acos":             trigOp(trigAcos),
		"$atan":             trigOp(trigAtan),
		"$sinh":             trigOp(trigSinh),
		"$cosh":             trigOp(trigCosh),
		"$tanh":             trigOp(trigTanh),
		"$asinh":            trigOp(trigAsinh),
		"$acosh":            trigOp(trigAcosh),
		"$atanh":            trigOp(trigAtanh),
		"$degreesToRadians": trigOp(trigDegToRad),
		"$radiansToDegrees": trigOp(trigRadToDeg),
		"$atan2":            parseAtan2,
	})
}

// trigFunc is one operator: its double and decimal functions and, for
// the bounded ones, its domain.
type trigFunc struct {
	f       func(float64) float64
	d       func(*big.Float) *big.Float
	bounded bool
	lo, hi  float64
	open    bool // bounds exclusive
}

var (
	trigSin = trigFunc{f: math.Sin, d: func(x *big.Float) *big.Float { s, _ := bigSinCos(x); return s },
		bounded: true, lo: math.Inf(-1), hi: math.Inf(1), open: true}
	trigCos = trigFunc{f: math.Cos, d: func(x *big.Float) *big.Float { _, c := bigSinCos(x); return c },
		bounded: true, lo: math.Inf(-1), hi: math.Inf(1), open: true}
	trigTan = trigFunc{f: math.Tan, d: func(x *big.Float) *big.Float {
		s, c := bigSinCos(x)
		return s.Quo(s, c)
	}, bounded: true, lo: math.Inf(-1), hi: math.Inf(1), open: true}
	trigAsin = trigFunc{f: math.Asin, d: bigAsin, bounded: true, lo: -1, hi: 1}
	trigAcos = trigFunc{f: math.Acos, d: func(x *big.Float) *big.Float {
		h := bf(x.Prec()).Quo(bfPi(x.Prec()), bfInt(2, x.Prec()))
		return h.Sub(h, bigAsin(x))
	}, bounded: true, lo: -1, hi: 1}
	trigAtan  = trigFunc{f: math.Atan, d: bigAtan}
	trigSinh  = trigFunc{f: math.Sinh, d: bigSinh}
	trigCosh  = trigFunc{f: math.Cosh, d: bigCosh}
	trigTanh  = trigFunc{f: math.Tanh, d: bigTanh}
	trigAsinh = trigFunc{f: math.Asinh, d: bigAsinh}
	trigAcosh = trigFunc{f: math.Acosh, d: func(x *big.Float) *big.Float {
		p := x.Prec()
		t := bf(p).Mul(x, x)
		t.Sub(t, bfInt(1, p))
		t.Sqrt(t)
		return bigLog(t.Add(t, x))
	}, bounded: true, lo: 1, hi: math.Inf(1)}
	trigAtanh = trigFunc{f: math.Atanh, d: bigAtanh, bounded: true, lo: -1, hi: 1}
	// The conversions multiply by π/180 (or 180/π), in decimal by the
	// constant rounded to 34 digits, as mongod does.
	trigDegToRad = trigFunc{f: func(x float64) float64 { return x * (math.Pi / 180) }}
	trigRadToDeg = trigFunc{f: func(x float64) float64 { return x * (180 / math.Pi) }}
)

// decPiOver180 and dec180OverPi are the conversion factors as decimal128.
var decPiOver180, dec180OverPi = func() (dec, dec) {
	pi := bfPi(decPrec)
	a := bf(decPrec).Quo(pi, bfInt(180, decPrec))
	b := bf(decPrec).Quo(bfInt(180, decPrec), pi)
	return toDec(bigToDec(a)), toDec(bigToDec(b))
}()

func trigOp(fn trigFunc) opParser { return unaryNum(fn.apply) }

func (fn trigFunc) apply(name string, v bsoncore.Value) (bsoncore.Value, error) {
	x := asF(v)
	if math.IsNaN(x) {
		return v, nil
	}
	if fn.bounded {
		in := x >= fn.lo && x <= fn.hi
		if fn.open {
			in = x > fn.lo && x < fn.hi
		}
		if v.Type == bsoncore.TypeDecimal128 {
			in = decInBounds(toDec(v), fn.lo, fn.hi, fn.open)
		}
		if !in {
			l, r := "[", "]"
			if fn.open {
				l, r = "(", ")"
			}
			shown := cppDouble(x)
			if v.Type == bsoncore.TypeDecimal128 {
				shown = bsonutil.Decimal(v).String()
			}
			return Missing, errs.New(errs.Location50989, "cannot apply %s to %s, value must in %s%s,%s%s", name, shown, l, cppDouble(fn.lo), cppDouble(fn.hi), r)
		}
	}
	if v.Type != bsoncore.TypeDecimal128 {
		return Double(fn.f(x)), nil
	}
	switch {
	case fn.d == nil: // the unit conversions
		k := decPiOver180
		if fn.f(1) > 1 {
			k = dec180OverPi
		}
		return decMul(toDec(v), k).value(), nil
	case math.IsInf(x, 0):
		r := fn.f(x)
		if math.Abs(r) == math.Pi/2 { // $atan of ±Infinity
			h := bf(decPrec).Quo(bfPi(decPrec), bfInt(2, decPrec))
			if r < 0 {
				h.Neg(h)
			}
			return bigToDec(h), nil
		}
		if r == 1 || r == -1 { // $tanh of ±Infinity: exactly ±1, as mongod gives it
			return decSmallInt(int64(r)), nil
		}
		return decFromFloat(r).value(), nil
	}
	bx, _ := decToBig(v, decPrec)
	return bigToDec(fn.d(bx)), nil
}

// decInBounds compares a decimal with a domain's bounds.
func decInBounds(d dec, lo, hi float64, open bool) bool {
	c := func(b float64) int { // sign of d - b
		return decSign(decAdd(d, decNeg(decFromFloat(b))))
	}
	if d.inf != 0 {
		if open {
			return false
		}
		return (d.inf < 0 && math.IsInf(lo, -1)) || (d.inf > 0 && math.IsInf(hi, 1))
	}
	cl, ch := 1, -1
	if !math.IsInf(lo, 0) {
		cl = c(lo)
	}
	if !math.IsInf(hi, 0) {
		ch = c(hi)
	}
	if open {
		return cl > 0 && ch < 0
	}
	return cl >= 0 && ch <= 0
}

// cppDouble formats f as a C++ stream does by default (%g with six
// significant digits), as mongod's messages print doubles.
func cppDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 6, 64)
}

func bigSinh(x *big.Float) *big.Float {
	p := x.Prec()
	if new(big.Float).Abs(x).Cmp(bfInt(1, p)) < 0 {
		// Series, free of the cancellation in (e^x - e^-x)/2 near 0.
		sum, term := bf(p).Set(x), bf(p).Set(x)
		x2 := bf(p).Mul(x, x)
		eps := bf(p).SetMantExp(bfInt(1, p), -int(p)-4)
		for n := int64(1); n < 500; n++ {
			term.Mul(term, x2)
			term.Quo(term, bfInt((2*n)*(2*n+1), p))
			sum.Add(sum, term)
			if term.Sign() == 0 || new(big.Float).Abs(term).Cmp(new(big.Float).Mul(eps, new(big.Float).Abs(sum))) < 0 {
				break
			}
		}
		return sum
	}
	e := bigExp(x)
	r := bf(p).Quo(bfInt(1, p), e)
	e.Sub(e, r)
	return e.Quo(e, bfInt(2, p))
}

func bigCosh(x *big.Float) *big.Float {
	p := x.Prec()
	e := bigExp(x)
	r := bf(p).Quo(bfInt(1, p), e)
	e.Add(e, r)
	return e.Quo(e, bfInt(2, p))
}

func bigTanh(x *big.Float) *big.Float {
	p := x.Prec()
	if new(big.Float).Abs(x).Cmp(bfInt(200, p)) > 0 {
		return bfInt(int64(x.Sign()), p)
	}
	s := bigSinh(x)
	return s.Quo(s, bigCosh(x))
}

func bigAsinh(x *big.Float) *big.Float {
	p := x.Prec()
	if x.Sign() < 0 {
		r := bigAsinh(bf(p).Neg(x))
		return r.Neg(r)
	}
	if x.Cmp(bf(p).SetFloat64(1e-12)) < 0 {
		// x - x³/6 + 3x⁵/40
		x2 := bf(p).Mul(x, x)
		t3 := bf(p).Mul(x2, x)
		t5 := bf(p).Mul(t3, x2)
		r := bf(p).Set(x)
		r.Sub(r, t3.Quo(t3, bfInt(6, p)))
		return r.Add(r, t5.Mul(t5, bf(p).SetFloat64(0.075)))
	}
	t := bf(p).Mul(x, x)
	t.Add(t, bfInt(1, p))
	t.Sqrt(t)
	return bigLog(t.Add(t, x))
}

func bigAtanh(x *big.Float) *big.Float {
	p := x.Prec()
	a := new(big.Float).Abs(x)
	one := bfInt(1, p)
	if a.Cmp(one) == 0 {
		return new(big.Float).SetInf(x.Sign() < 0)
	}
	if a.Cmp(bf(p).SetFloat64(1e-12)) < 0 {
		// x + x³/3 + x⁵/5
		x2 := bf(p).Mul(x, x)
		t3 := bf(p).Mul(x2, x)
		t5 := bf(p).Mul(t3, x2)
		r := bf(p).Set(x)
		r.Add(r, t3.Quo(t3, bfInt(3, p)))
		return r.Add(r, t5.Quo(t5, bfInt(5, p)))
	}
	n := bf(p).Add(one, x)
	d := bf(p).Sub(one, x)
	r := bigLog(n.Quo(n, d))
	return r.Quo(r, bfInt(2, p))
}

// parseAtan2 is $atan2: [y, x], the angle of the point (x, y); a
// decimal operand makes the result a decimal.
func parseAtan2(name string, args bsoncore.Value, pc *ParseContext) (Expr, error) {
	es, err := parseN(name, args, pc, 2, 2)
	if err != nil {
		return nil, err
	}
	return exprFunc(func(doc bsoncore.Document, vars *Vars) (bsoncore.Value, error) {
		y, err := es[0].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(y) {
			return Null, nil
		}
		if !isNum(y) {
			return Missing, errs.New(errs.Location51044, "%s only supports numeric types, not %s", name, bsonutil.TypeName(y.Type))
		}
		x, err := es[1].Eval(doc, vars)
		if err != nil {
			return Missing, err
		}
		if IsNullish(x) {
			return Null, nil
		}
		if !isNum(x) {
			return Missing, errs.New(errs.Location51045, "%s only supports numeric types, not %s", name, bsonutil.TypeName(x.Type))
		}
		if y.Type != bsoncore.TypeDecimal128 && x.Type != bsoncore.TypeDecimal128 {
			return Double(math.Atan2(asF(y), asF(x))), nil
		}
		fy, fx := asF(y), asF(x)
		if math.IsNaN(fy) || math.IsNaN(fx) {
			return dec{nan: true}.value(), nil
		}
		by, oky := decToBig(toDec(y).value(), decPrec)
		bx, okx := decToBig(toDec(x).value(), decPrec)
		if !oky || !okx {
			return decFromFloat(math.Atan2(fy, fx)).value(), nil
		}
		return bigToDec(bigAtan2(by, bx)), nil
	}), nil
}
