package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/lodedb/lode/internal/bsonutil"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// dec is an exact decimal: coefficient × 10^exp, or a special value.
type dec struct {
	c   *big.Int
	e   int
	nan bool
	inf int  // +1 / -1
	neg bool // sign of a zero or special
}

var bigTen = big.NewInt(10)

func decIsZero(v bsoncore.Value) bool {
	d := toDec(v)
	return !d.special() && d.c.Sign() == 0
}

// toDec converts any numeric value to dec. Doubles are rounded to 15
// significant digits as MongoDB does.
func toDec(v bsoncore.Value) dec {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		return dec{c: big.NewInt(bsonutil.AsInt64(v))}
	case bsoncore.TypeDouble:
		return decFromFloat(v.Double())
	case bsoncore.TypeDecimal128:
		d := bsonutil.Decimal(v)
		if d.IsNaN() {
			return dec{nan: true}
		}
		if i := d.IsInf(); i != 0 {
			return dec{inf: i}
		}
		c, e, err := d.BigInt()
		if err != nil {
			return dec{nan: true}
		}
		return dec{c: c, e: e, neg: strings.HasPrefix(d.String(), "-")}
	}
	return dec{nan: true}
}

func decFromFloat(f float64) dec {
	if math.IsNaN(f) {
		return dec{nan: true}
	}
	if math.IsInf(f, 1) {
		return dec{inf: 1}
	}
	if math.IsInf(f, -1) {
		return dec{inf: -1}
	}
	d, err := bson.ParseDecimal128(strconv.FormatFloat(f, 'e', 14, 64))
	if err != nil {
		return dec{nan: true}
	}
	return toDec(DecimalValue(d))
}

func (d dec) special() bool { return d.nan || d.inf != 0 }

// value rounds d to 34 digits (half-even) and encodes it.
func (d dec) value() bsoncore.Value {
	switch {
	case d.nan:
		x, _ := bson.ParseDecimal128("NaN")
		return DecimalValue(x)
	case d.inf > 0:
		x, _ := bson.ParseDecimal128("Infinity")
		return DecimalValue(x)
	case d.inf < 0:
		x, _ := bson.ParseDecimal128("-Infinity")
		return DecimalValue(x)
	}
	c := new(big.Int).Set(d.c)
	e := d.e
	digits := len(new(big.Int).Abs(c).String())
	if digits > 34 {
		drop := digits - 34
		p := new(big.Int).Exp(bigTen, big.NewInt(int64(drop)), nil)
		q, r := new(big.Int).QuoRem(c, p, new(big.Int))
		half := new(big.Int).Quo(p, big.NewInt(2))
		ra := new(big.Int).Abs(r)
		cmp := ra.Cmp(half)
		if cmp > 0 || (cmp == 0 && q.Bit(0) == 1) {
			if c.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			} else {
				q.Add(q, big.NewInt(1))
			}
		}
		c, e = q, e+drop
	}
	x, ok := bson.ParseDecimal128FromBigInt(c, e)
	if !ok {
		if c.Sign() < 0 {
			return dec{inf: -1}.value()
		}
		return dec{inf: 1}.value()
	}
	return DecimalValue(x)
}

func (d dec) float() float64 {
	switch {
	case d.nan:
		return math.NaN()
	case d.inf != 0:
		return math.Inf(d.inf)
	}
	f, _ := strconv.ParseFloat(d.c.String()+"e"+strconv.Itoa(d.e), 64)
	return f
}

func align(a, b dec) (*big.Int, *big.Int, int) {
	ac, bc := new(big.Int).Set(a.c), new(big.Int).Set(b.c)
	e := a.e
	if a.e > b.e {
		ac.Mul(ac, new(big.Int).Exp(bigTen, big.NewInt(int64(a.e-b.e)), nil))
		e = b.e
	} else if b.e > a.e {
		bc.Mul(bc, new(big.Int).Exp(bigTen, big.NewInt(int64(b.e-a.e)), nil))
	}
	return ac, bc, e
}

func decAdd(a, b dec) dec {
	if a.nan || b.nan || (a.inf != 0 && b.inf != 0 && a.inf != b.inf) {
		return dec{nan: true}
	}
	if a.inf != 0 {
		return a
	}
	if b.inf != 0 {
		return b
	}
	ac, bc, e := align(a, b)
	return dec{c: ac.Add(ac, bc), e: e}
}

func decNeg(a dec) dec {
	if a.nan {
		return a
	}
	if a.inf != 0 {
		return dec{inf: -a.inf}
	}
	return dec{c: new(big.Int).Neg(a.c), e: a.e, neg: !a.neg}
}

func decMul(a, b dec) dec {
	if a.nan || b.nan {
		return dec{nan: true}
	}
	if a.inf != 0 || b.inf != 0 {
		sa, sb := decSign(a), decSign(b)
		if sa == 0 || sb == 0 {
			return dec{nan: true}
		}
		return dec{inf: sa * sb}
	}
	return dec{c: new(big.Int).Mul(a.c, b.c), e: a.e + b.e}
}

func decSign(a dec) int {
	if a.inf != 0 {
		return a.inf
	}
	if a.nan {
		return 0
	}
	return a.c.Sign()
}

// decDiv divides with 34 significant digits; b must be non-zero.
func decDiv(a, b dec) dec {
	if a.nan || b.nan || (a.inf != 0 && b.inf != 0) {
		return dec{nan: true}
	}
	if a.inf != 0 {
		return dec{inf: a.inf * b.c.Sign()}
	}
	if b.inf != 0 {
		return dec{c: new(big.Int), e: 0}
	}
	// scale numerator so the quotient has >= 36 digits
	scale := 40
	num := new(big.Int).Mul(a.c, new(big.Int).Exp(bigTen, big.NewInt(int64(scale)), nil))
	q, r := new(big.Int).QuoRem(num, b.c, new(big.Int))
	e := a.e - b.e - scale
	if r.Sign() == 0 {
		// exact: strip trailing zeros down to the ideal exponent
		ideal := a.e - b.e
		for e < ideal {
			qq, rr := new(big.Int).QuoRem(q, bigTen, new(big.Int))
			if rr.Sign() != 0 {
				break
			}
			q, e = qq, e+1
		}
	}
	return dec{c: q, e: e}
}

func bigOne() *big.Int  { return big.NewInt(1) }
func bigZero() *big.Int { return big.NewInt(0) }
