package expr

import (
	"math"
	"math/big"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// This file holds the transcendental functions of the trigonometry
// operators for decimal128 inputs. mongod evaluates them with the Intel
// decimal library at 34 digits; Lode computes them with math/big floats
// carrying well over twice that precision and rounds the result to 34
// significant digits (half to even), so results are the correctly rounded
// ones.

// decPrec is the working precision in bits (about 77 decimal digits).
const decPrec = 256

// piDigits is π to 80 decimal places.
const piDigits = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899"

func bf(prec uint) *big.Float { return new(big.Float).SetPrec(prec) }

func bfPi(prec uint) *big.Float {
	x, _, _ := big.ParseFloat(piDigits, 10, prec, big.ToNearestEven)
	return x
}

func bfInt(i int64, prec uint) *big.Float { return bf(prec).SetInt64(i) }

// decToBig converts a finite decimal128 to a big.Float; ok is false for
// NaN and the infinities.
func decToBig(v bsoncore.Value, prec uint) (*big.Float, bool) {
	d := toDec(v)
	if d.special() {
		return nil, false
	}
	x := bf(prec).SetInt(d.c)
	if d.e != 0 {
		p := bf(prec).SetInt(new(big.Int).Exp(bigTen, big.NewInt(int64(expAbs(d.e))), nil))
		if d.e > 0 {
			x.Mul(x, p)
		} else {
			x.Quo(x, p)
		}
	}
	if d.neg && x.Sign() == 0 {
		x.Neg(x)
	}
	return x, true
}

func expAbs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// bigToDec rounds x to 34 significant digits as a decimal128 value.
func bigToDec(x *big.Float) bsoncore.Value {
	if x.IsInf() {
		return dec{inf: x.Sign()}.value()
	}
	if x.Sign() == 0 {
		return decSmallInt(0)
	}
	s := x.Text('e', 33)
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		// Beyond decimal128's exponent range.
		if strings.Contains(s, "e+") {
			return dec{inf: x.Sign()}.value()
		}
		return decSmallInt(0)
	}
	return DecimalValue(d)
}

// decSmallInt returns the decimal128 value of a small integer.
func decSmallInt(i int64) bsoncore.Value {
	d, _ := bson.ParseDecimal128FromBigInt(big.NewInt(i), 0)
	return DecimalValue(d)
}

// bigExp returns e^x.
func bigExp(x *big.Float) *big.Float {
	prec := x.Prec()
	if x.Sign() == 0 {
		return bfInt(1, prec)
	}
	// Halve until |x| < 2^-8, sum the series, then square back.
	r := bf(prec).Set(x)
	k := 0
	if e := r.MantExp(nil); e > -8 {
		k = e + 8
		r.SetMantExp(r, -k)
	}
	sum, term := bfInt(1, prec), bfInt(1, prec)
	eps := bf(prec).SetMantExp(bfInt(1, prec), -int(prec)-4)
	for n := int64(1); n < 1000; n++ {
		term.Mul(term, r)
		term.Quo(term, bfInt(n, prec))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for ; k > 0; k-- {
		sum.Mul(sum, sum)
		if sum.IsInf() {
			break
		}
	}
	return sum
}

// bigLog returns ln(x) for x > 0, by Newton's iteration on exp.
func bigLog(x *big.Float) *big.Float {
	prec := x.Prec()
	// x = m · 2^e with m in [0.5, 1): ln x = ln m + e·ln 2.
	m := bf(prec)
	e := x.MantExp(m)
	y := bf(prec)
	if e != 0 {
		y.Mul(bigLn2(prec), bfInt(int64(e), prec))
	}
	mf, _ := m.Float64()
	z := bf(prec).SetFloat64(math.Log(mf))
	for i := 0; i < 12; i++ {
		ez := bigExp(z)
		num := bf(prec).Sub(m, ez)
		den := bf(prec).Add(m, ez)
		num.Quo(num, den)
		num.Mul(num, bfInt(2, prec))
		z.Add(z, num)
	}
	return y.Add(y, z)
}

// bigLn2 is ln 2.
func bigLn2(prec uint) *big.Float {
	z := bf(prec).SetFloat64(math.Ln2)
	two := bfInt(2, prec)
	for i := 0; i < 12; i++ {
		ez := bigExp(z)
		num := bf(prec).Sub(two, ez)
		den := bf(prec).Add(two, ez)
		num.Quo(num, den)
		num.Mul(num, two)
		z.Add(z, num)
	}
	return z
}

// bigSinCos returns sin x and cos x.
func bigSinCos(x *big.Float) (*big.Float, *big.Float) {
	// Extra bits for the reduction of large arguments modulo 2π.
	prec := x.Prec()
	if e := x.MantExp(nil); e > 0 {
		prec += uint(e)
	}
	pi := bfPi(prec + 64)
	twoPi := bf(prec+64).Mul(pi, bfInt(2, prec))
	r := bf(prec + 64).Set(x)
	q := bf(prec+64).Quo(r, twoPi)
	qi, _ := q.Int(nil)
	r.Sub(r, bf(prec+64).Mul(bf(prec+64).SetInt(qi), twoPi))
	p := x.Prec()
	r = bf(p).Set(r)
	// Series on r/2^8, then double the angle 8 times.
	r.SetMantExp(r, -8)
	s, c := bf(p).Set(r), bfInt(1, p)
	term := bf(p).Set(r)
	r2 := bf(p).Mul(r, r)
	eps := bf(p).SetMantExp(bfInt(1, p), -int(p)-4)
	for n := int64(1); n < 500; n++ {
		term.Mul(term, r2)
		term.Quo(term, bfInt((2*n)*(2*n+1), p))
		term.Neg(term)
		s.Add(s, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	term = bfInt(1, p)
	for n := int64(1); n < 500; n++ {
		term.Mul(term, r2)
		term.Quo(term, bfInt((2*n-1)*(2*n), p))
		term.Neg(term)
		c.Add(c, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for i := 0; i < 8; i++ {
		ns := bf(p).Mul(s, c)
		ns.Mul(ns, bfInt(2, p))
		nc := bf(p).Mul(c, c)
		nc.Sub(nc, bf(p).Mul(s, s))
		s, c = ns, nc
	}
	return s, c
}

// bigAtan returns atan x.
func bigAtan(x *big.Float) *big.Float {
	p := x.Prec()
	if x.Sign() < 0 {
		r := bigAtan(bf(p).Neg(x))
		return r.Neg(r)
	}
	one := bfInt(1, p)
	if x.Cmp(one) > 0 {
		// atan x = π/2 - atan(1/x)
		r := bigAtan(bf(p).Quo(one, x))
		half := bf(p).Quo(bfPi(p), bfInt(2, p))
		return half.Sub(half, r)
	}
	// Halve the angle until x < 2^-10: atan x = 2 atan(x / (1 + sqrt(1 + x²))).
	y := bf(p).Set(x)
	k := 0
	limit := bf(p).SetMantExp(one, -10)
	for y.Cmp(limit) > 0 {
		t := bf(p).Mul(y, y)
		t.Add(t, one)
		t.Sqrt(t)
		t.Add(t, one)
		y.Quo(y, t)
		k++
	}
	sum, term := bf(p).Set(y), bf(p).Set(y)
	y2 := bf(p).Mul(y, y)
	eps := bf(p).SetMantExp(one, -int(p)-4)
	for n := int64(1); n < 2000; n++ {
		term.Mul(term, y2)
		term.Neg(term)
		t := bf(p).Quo(term, bfInt(2*n+1, p))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, k)
}

// bigAsin returns asin x for |x| <= 1.
func bigAsin(x *big.Float) *big.Float {
	p := x.Prec()
	one := bfInt(1, p)
	a := new(big.Float).Abs(x)
	if a.Cmp(one) == 0 {
		h := bf(p).Quo(bfPi(p), bfInt(2, p))
		if x.Sign() < 0 {
			h.Neg(h)
		}
		return h
	}
	t := bf(p).Mul(x, x)
	t.Sub(one, t)
	t.Sqrt(t)
	return bigAtan(t.Quo(x, t))
}

// bigAtan2 returns the angle of the point (x, y).
func bigAtan2(y, x *big.Float) *big.Float {
	p := y.Prec()
	pi := bfPi(p)
	switch {
	case x.Sign() > 0:
		return bigAtan(bf(p).Quo(y, x))
	case x.Sign() < 0:
		r := bigAtan(bf(p).Quo(y, x))
		if y.Signbit() {
			return r.Sub(r, pi)
		}
		return r.Add(r, pi)
	case y.Sign() > 0:
		return pi.Quo(pi, bfInt(2, p))
	case y.Sign() < 0:
		pi.Quo(pi, bfInt(2, p))
		return pi.Neg(pi)
	}
	return bf(p)
}
