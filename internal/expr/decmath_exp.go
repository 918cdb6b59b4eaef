package expr

import (
	"math/big"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// $ln, $log10, $log, $exp, $pow and $sqrt of decimal128 values at
// decimal128's own precision (34 digits), with decmath.go's big.Float
// functions, as mongod computes them with its decimal library; Lode went
// through a double (15 digits). An inexact result keeps its 34 digits
// ("0.9162907318741550651835272117680110"); exact ones take mongod's
// forms: $ln of 1 is 0, $log10 of a power of ten its exponent, $exp of 0
// is 1, an exact square root the exponent IEEE 754 prefers. $pow always
// answers in 34 digits ($pow of 10.0 and 2 is
// 100.0000000000000000000000000000000), as mongod's does.

// decPowerOfTen reports whether d is an exact power of ten, and which.
func decPowerOfTen(d dec) (int, bool) {
	if d.special() || d.c.Sign() <= 0 {
		return 0, false
	}
	s := d.c.String()
	if strings.TrimRight(s, "0") != "1" {
		return 0, false
	}
	return d.e + len(s) - 1, true
}

// decLnValue is $ln of a decimal: positive finite, NaN, or +Infinity.
func decLnValue(v bsoncore.Value) bsoncore.Value {
	d := toDec(v)
	if d.special() {
		return d.value()
	}
	if p, ok := decPowerOfTen(d); ok && p == 0 {
		return decSmallInt(0)
	}
	x, _ := decToBig(v, decPrec)
	return bigToDec(bigLog(x))
}

// decLog10Value is $log10 of a decimal: a power of ten gives its
// exponent exactly.
func decLog10Value(v bsoncore.Value) bsoncore.Value {
	d := toDec(v)
	if d.special() {
		return d.value()
	}
	if p, ok := decPowerOfTen(d); ok {
		return decSmallInt(int64(p))
	}
	x, _ := decToBig(v, decPrec)
	l := bigLog(x)
	return bigToDec(l.Quo(l, bigLog(bfInt(10, decPrec))))
}

// decLogValue is $log with a decimal operand: mongod divides the two
// 34-digit natural logarithms as decimals ($log of 1 in base 8 is 0E+33).
func decLogValue(x, base bsoncore.Value) bsoncore.Value {
	return NumDiv(decLnValue(x), decLnValue(base))
}

// decExpValue is $exp of a decimal.
func decExpValue(v bsoncore.Value) bsoncore.Value {
	d := toDec(v)
	switch {
	case d.nan || d.inf > 0:
		return d.value()
	case d.inf < 0:
		return decSmallInt(0)
	case d.c.Sign() == 0:
		return decSmallInt(1)
	}
	x, _ := decToBig(v, decPrec)
	if f, _ := x.Float64(); f > 20000 {
		return dec{inf: 1}.value()
	} else if f < -20000 {
		return decSmallInt(0)
	}
	return bigToDec(bigExp(x))
}

// decSqrtValue is $sqrt of a non-negative decimal; an exact root keeps
// the exponent IEEE 754 prefers (half the operand's).
func decSqrtValue(v bsoncore.Value) bsoncore.Value {
	d := toDec(v)
	if d.special() {
		return d.value()
	}
	x, _ := decToBig(v, decPrec)
	r := toDec(bigToDec(bf(decPrec).Sqrt(x)))
	if r.c.Sign() != 0 {
		// Exact when the root squared is the operand: drop the trailing
		// zeros down to the preferred exponent.
		sq, want, _ := align(dec{c: new(big.Int).Mul(r.c, r.c), e: 2 * r.e}, d)
		if sq.Cmp(want) == 0 {
			pref := d.e / 2
			if d.e < 0 && d.e%2 != 0 {
				pref--
			}
			for r.e < pref {
				q, rem := new(big.Int).QuoRem(r.c, bigTen, new(big.Int))
				if rem.Sign() != 0 {
					break
				}
				r = dec{c: q, e: r.e + 1}
			}
		}
	}
	return r.value()
}

// decPowValue is $pow with a decimal operand: an integral exponent by
// repeated squaring, any other through exp and ln; a negative base and a
// fractional exponent give NaN.
func decPowValue(base, exp bsoncore.Value) bsoncore.Value {
	a, b := toDec(base), toDec(exp)
	if a.special() || b.special() {
		return dec{nan: true}.value()
	}
	if a.c.Sign() == 0 {
		return decSmallInt(0)
	}
	x, _ := decToBig(base, decPrec)
	y, _ := decToBig(exp, decPrec)
	if y.IsInt() {
		if n, acc := y.Int64(); acc == big.Exact && n >= -100000 && n <= 100000 {
			r, p := bfInt(1, decPrec), bf(decPrec).Set(x)
			m := n
			if m < 0 {
				m = -m
			}
			for ; m > 0; m >>= 1 {
				if m&1 == 1 {
					r.Mul(r, p)
				}
				p.Mul(p, p)
			}
			if n < 0 {
				r.Quo(bfInt(1, decPrec), r)
			}
			return padDec34(bigToDec(r))
		}
	}
	if x.Sign() < 0 {
		return dec{nan: true}.value()
	}
	l := bigLog(x)
	l.Mul(l, y)
	if f, _ := l.Float64(); f > 20000 {
		return dec{inf: 1}.value()
	} else if f < -20000 {
		return decSmallInt(0)
	}
	return padDec34(bigToDec(bigExp(l)))
}

// padDec34 gives a decimal result all 34 digits, as mongod's $pow does.
func padDec34(v bsoncore.Value) bsoncore.Value {
	d := toDec(v)
	if d.special() || d.c.Sign() == 0 {
		return v
	}
	n := len(new(big.Int).Abs(d.c).String())
	if n >= 34 {
		return v
	}
	p := new(big.Int).Exp(bigTen, big.NewInt(int64(34-n)), nil)
	return dec{c: new(big.Int).Mul(d.c, p), e: d.e - (34 - n)}.value()
}
