package keystring

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
)

// decimal128 layout constants.
const (
	decExpBias = 6176
	decMaxExp  = 6111
	decMinExp  = -6176
)

// decParts is a decimal128 split into its fields. The value is
// (-1)^neg * coef * 10^exp unless nan or inf is set.
type decParts struct {
	neg      bool
	nan, inf bool
	exp      int
	hi, lo   uint64 // coefficient
}

func splitDecimal(h, l uint64) decParts {
	p := decParts{neg: h>>63 == 1}
	switch h >> 58 & 0x1F {
	case 0x1F:
		p.nan = true
		return p
	case 0x1E:
		p.inf = true
		return p
	}
	if h>>61&3 == 3 {
		// Large-coefficient form: every such coefficient exceeds the
		// maximum, so the value is zero (as the driver reads it).
		p.exp = int(h>>47&0x3FFF) - decExpBias
		return p
	}
	p.exp = int(h>>49&0x3FFF) - decExpBias
	p.hi = h & (1<<49 - 1)
	p.lo = l
	return p
}

// coefDigits appends the decimal digits (values 0-9) of a 128-bit
// coefficient, which must be non-zero.
func coefDigits(dst []byte, hi, lo uint64) []byte {
	start := len(dst)
	for hi != 0 || lo != 0 {
		var r uint64
		hi, r = bits.Div64(0, hi, 10)
		lo, r = bits.Div64(r, lo, 10)
		dst = append(dst, byte(r))
	}
	d := dst[start:]
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
	return dst
}

// appendDecimal appends the encoding of a decimal128 given as its high and
// low words.
func appendDecimal(dst []byte, h, l uint64) []byte {
	p := splitDecimal(h, l)
	switch {
	case p.nan:
		return append(dst, tNumNaN)
	case p.inf && p.neg:
		return append(dst, tNumNegInf)
	case p.inf:
		return append(dst, tNumPosInf)
	case p.hi == 0 && p.lo == 0:
		return append(dst, tNumZero)
	}
	var buf [40]byte
	digits := coefDigits(buf[:0], p.hi, p.lo)
	e := p.exp
	for digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
		e++
	}
	// Now |x| = D * 10^e with D the digits; the tail exponent is e+len.
	d, exact := floorDecimal(digits, e)
	cls := byte(tNumPos)
	if p.neg {
		cls = tNumNeg
	}
	dst = append(dst, cls)
	start := len(dst)
	dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(d))
	if exact {
		dst = append(dst, 0)
	} else {
		dst = appendTail(append(dst, 1), digits, e+len(digits))
	}
	if p.neg {
		invert(dst[start:])
	}
	return dst
}

var pow10f = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

var pow5 = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return p
}()

// floorDecimal returns the largest double d <= D*10^e (D given as digits,
// D > 0, no trailing zero) and whether d equals it exactly.
func floorDecimal(digits []byte, e int) (float64, bool) {
	if len(digits) <= 15 { // D < 10^15 < 2^53
		var D uint64
		for _, c := range digits {
			D = D*10 + uint64(c)
		}
		if d, exact, ok := floorSmallDecimal(D, e); ok {
			return d, exact
		}
	}
	return floorDecimalBig(digits, e)
}

// floorSmallDecimal handles D < 2^53 with a small exponent without big
// arithmetic. ok is false when it cannot decide.
func floorSmallDecimal(D uint64, e int) (d float64, exact, ok bool) {
	if e >= 0 {
		if e > 15 {
			return 0, false, false
		}
		hi, lo := bits.Mul64(D, uint64(pow10f[e]))
		if hi != 0 || lo > 1<<53 {
			return 0, false, false
		}
		return float64(lo), true, true
	}
	k := -e
	if k > 22 {
		return 0, false, false
	}
	// Both operands are exact, so the quotient is correctly rounded.
	f := float64(D) / pow10f[k]
	if D%pow5[k] == 0 {
		// D/10^k = (D/5^k)/2^k is dyadic with < 53 bits: exact.
		return f, true, true
	}
	// Not dyadic, so f != x. Lower f if f > x, that is if
	// mant*2^q*10^k > D, i.e. mant*5^k*2^(q+k) > D.
	fr, q := math.Frexp(f) // f = fr*2^q, fr in [0.5,1)
	mant := uint64(fr * (1 << 53))
	q -= 53
	aHi, aLo := bits.Mul64(mant, pow5[k]) // A = mant*5^k < 2^106
	s := q + k
	var greater bool
	if s >= 0 {
		// A*2^s >= A > D whenever A has more bits than D.
		greater = aHi != 0 || bits.Len64(aLo)+s > 64 || aLo<<uint(s) > D
	} else {
		t := -s
		if bits.Len64(D)+t > 127 {
			greater = false // D*2^t > 2^126 > A
		} else {
			var bHi, bLo uint64
			if t >= 64 {
				bHi, bLo = D<<uint(t-64), 0
			} else {
				bHi, bLo = D>>uint(64-t), D<<uint(t)
				if t == 0 {
					bHi = 0
				}
			}
			greater = aHi > bHi || (aHi == bHi && aLo > bLo)
		}
	}
	if greater {
		f = math.Nextafter(f, 0)
	}
	return f, false, true
}

// floorDecimalBig is the exact general case of floorDecimal.
func floorDecimalBig(digits []byte, e int) (float64, bool) {
	var buf [40]byte
	s := buf[:0]
	for _, c := range digits {
		s = append(s, '0'+c)
	}
	num, _ := new(big.Int).SetString(string(s), 10)
	r := new(big.Rat)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(e))), nil)
	if e >= 0 {
		r.SetInt(num.Mul(num, p))
	} else {
		r.SetFrac(num, p)
	}
	f, exact := r.Float64()
	if exact {
		return f, true
	}
	if math.IsInf(f, 1) || new(big.Rat).SetFloat64(f).Cmp(r) > 0 {
		f = math.Nextafter(f, 0)
	}
	return f, false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
