package window

import (
	"math"
	"math/big"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/expr"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// sumFunc is the removable $sum, $avg and $count: integers sum exactly
// (a big integer, so removal is exact), doubles with Kahan compensation
// (non-finite values counted apart, so removing an infinity restores a
// finite sum), decimals exactly. The result has the widest type still
// present in the window, as mongod's removable sum does.
type sumFunc struct {
	inputFunc
	avg                 bool
	ints                big.Int
	tmp                 big.Int
	f, c                float64
	nan, posInf, negInf int64
	dec                 bsoncore.Value
	n32, n64, nf, nd    int64
	// nums are the window's numbers (other values as type 0), 17 bytes
	// each, for removal.
	nums  []numEnt
	nhead int
}

// numEnt is one number of the window in its BSON encoding.
type numEnt struct {
	t    bsoncore.Type
	data [16]byte
}

func (e *numEnt) value() bsoncore.Value {
	n := 0
	switch e.t {
	case bsoncore.TypeInt32:
		n = 4
	case bsoncore.TypeInt64, bsoncore.TypeDouble:
		n = 8
	case bsoncore.TypeDecimal128:
		n = 16
	}
	return bsoncore.Value{Type: e.t, Data: e.data[:n]}
}

func (s *sumFunc) Add(doc bsoncore.Document) error {
	v, err := s.input(doc)
	if err != nil {
		return err
	}
	if s.keep {
		var e numEnt
		if bsonutil.IsNumber(v.Type) {
			e.t = v.Type
			copy(e.data[:], v.Data)
		}
		s.nums = append(s.nums, e)
	}
	s.apply(v, 1)
	return nil
}

func (s *sumFunc) Remove() error {
	e := s.nums[s.nhead]
	s.nhead++
	if s.nhead > 64 && s.nhead*2 > len(s.nums) {
		n := copy(s.nums, s.nums[s.nhead:])
		s.nums, s.nhead = s.nums[:n], 0
	}
	s.apply(e.value(), -1)
	return nil
}

func (s *sumFunc) apply(v bsoncore.Value, sign int64) {
	switch v.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64:
		s.tmp.SetInt64(bsonutil.AsInt64(v) * sign)
		if v.Type == bsoncore.TypeInt64 && bsonutil.AsInt64(v) == math.MinInt64 {
			s.tmp.SetInt64(math.MinInt64)
			if sign < 0 {
				s.tmp.Neg(&s.tmp)
			}
		}
		s.ints.Add(&s.ints, &s.tmp)
		if v.Type == bsoncore.TypeInt32 {
			s.n32 += sign
		} else {
			s.n64 += sign
		}
	case bsoncore.TypeDouble:
		x := v.Double()
		switch {
		case math.IsNaN(x):
			s.nan += sign
		case math.IsInf(x, 1):
			s.posInf += sign
		case math.IsInf(x, -1):
			s.negInf += sign
		default:
			s.kahan(x * float64(sign))
		}
		s.nf += sign
	case bsoncore.TypeDecimal128:
		if s.dec.Type == 0 {
			s.dec = expr.Int32(0)
		}
		if sign > 0 {
			s.dec = expr.NumAdd(s.dec, v)
		} else {
			s.dec = expr.NumSub(s.dec, v)
		}
		s.nd += sign
	}
}

func (s *sumFunc) kahan(x float64) {
	y := x - s.c
	t := s.f + y
	s.c = (t - s.f) - y
	s.f = t
}

func (s *sumFunc) count() int64 { return s.n32 + s.n64 + s.nf + s.nd }

// double returns the sum of the ints and doubles as a double.
func (s *sumFunc) double() float64 {
	switch {
	case s.nan > 0 || (s.posInf > 0 && s.negInf > 0):
		return math.NaN()
	case s.posInf > 0:
		return math.Inf(1)
	case s.negInf > 0:
		return math.Inf(-1)
	}
	i, _ := new(big.Float).SetInt(&s.ints).Float64()
	return i + s.f
}

func (s *sumFunc) total() bsoncore.Value {
	switch {
	case s.nd > 0:
		t := s.dec
		if s.ints.Sign() != 0 || s.nf > 0 {
			t = expr.NumAdd(t, expr.Double(s.double()))
		}
		return t
	case s.nf > 0:
		return expr.Double(s.double())
	}
	if !s.ints.IsInt64() {
		return expr.Double(s.double())
	}
	i := s.ints.Int64()
	if s.n64 == 0 && i >= math.MinInt32 && i <= math.MaxInt32 {
		return expr.Int32(int32(i))
	}
	return expr.Int64(i)
}

func (s *sumFunc) Result(int64) (bsoncore.Value, error) {
	if !s.avg {
		return s.total(), nil
	}
	n := s.count()
	if n == 0 {
		return expr.Null, nil
	}
	if s.nd > 0 {
		return expr.NumDiv(s.total(), expr.Int64(n)), nil
	}
	return expr.Double(s.double() / float64(n)), nil
}

func (s *sumFunc) MemUsage() int64 { return 128 + int64(cap(s.nums))*17 }
