package agg

import (
	"math"
	"math/bits"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// A granularity rounder moves $bucketAuto's boundaries onto a preferred
// number series (the Renard series, the E series, 1-2-5) or the powers of
// two, as mongod's do: a bucket's max is rounded up, the first bucket's
// min down. Values are non-negative numbers (checked as the input is
// read); zero rounds to itself.
type granularity struct {
	name   string
	series []float64 // one decade of the series; nil for POWERSOF2
}

// The series of one decade, as mongod takes them from the tables of
// preferred numbers (the "least rounded" Renard values).
var granularitySeries = map[string][]float64{
	"R5":  {10, 16, 25, 40, 63},
	"R10": {100, 125, 160, 200, 250, 315, 400, 500, 630, 800},
	"R20": {100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800, 900},
	"R40": {100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280, 300,
		315, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950},
	"R80": {103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218, 230, 243, 258, 272, 290, 307,
		325, 345, 365, 387, 412, 437, 462, 487, 515, 545, 575, 615, 650, 690, 730, 775, 825, 875, 925, 975},
	"1-2-5": {10, 20, 50},
	"E6":    {10, 15, 22, 33, 47, 68},
	"E12":   {10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82},
	"E24":   {10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91},
	"E48": {100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178, 187, 196, 205, 215, 226, 237, 249,
		261, 274, 287, 301, 316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536, 562, 590, 619, 649,
		681, 715, 750, 787, 825, 866, 909, 953},
	"E96": {100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150, 154, 158,
		162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232, 237, 243, 249, 255,
		261, 267, 274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374, 383, 392, 402, 412,
		422, 432, 442, 453, 464, 475, 487, 499, 511, 523, 536, 549, 562, 576, 590, 604, 619, 634, 649, 665,
		681, 698, 715, 732, 750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976},
	"E192": {100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123, 124, 126,
		127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152, 154, 156, 158, 160,
		162, 164, 165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189, 191, 193, 196, 198, 200, 203,
		205, 208, 210, 213, 215, 218, 221, 223, 226, 229, 232, 234, 237, 240, 243, 246, 249, 252, 255, 258,
		261, 264, 267, 271, 274, 277, 280, 284, 287, 291, 294, 298, 301, 305, 309, 312, 316, 320, 324, 328,
		332, 336, 340, 344, 348, 352, 357, 361, 365, 370, 374, 379, 383, 388, 392, 397, 402, 407, 412, 417,
		422, 427, 432, 437, 442, 448, 453, 459, 464, 470, 475, 481, 487, 493, 499, 505, 511, 517, 523, 530,
		536, 542, 549, 556, 562, 569, 576, 583, 590, 597, 604, 612, 619, 626, 634, 642, 649, 657, 665, 673,
		681, 690, 698, 706, 715, 723, 732, 741, 750, 759, 768, 777, 787, 796, 806, 816, 825, 835, 845, 856,
		866, 876, 887, 898, 909, 920, 931, 942, 953, 965, 976, 988},
}

// parseGranularity reads $bucketAuto's granularity.
func parseGranularity(v bsoncore.Value) (*granularity, error) {
	name, ok := v.StringValueOK()
	if !ok {
		return nil, errs.New(errs.Location40261, "The $bucketAuto 'granularity' field must be a string, but found type: %s", bsonutil.TypeName(v.Type))
	}
	if name == "POWERSOF2" {
		return &granularity{name: name}, nil
	}
	s, ok := granularitySeries[name]
	if !ok {
		return nil, errs.New(errs.Location40257, "Unknown rounding granularity '%s'", name)
	}
	return &granularity{name: name, series: s}, nil
}

// checkKey refuses a groupBy value a granularity cannot round, with
// mongod's codes. Decimal values, which mongod rounds in decimal
// arithmetic, are refused as not implemented.
func (g *granularity) checkKey(k bsoncore.Value) error {
	switch k.Type {
	case bsoncore.TypeInt32, bsoncore.TypeInt64, bsoncore.TypeDouble:
	case bsoncore.TypeDecimal128:
		return errs.New(errs.NotImplemented, "$bucketAuto with a 'granularity' over decimal values is not supported by Lode")
	default:
		name := "missing"
		if !expr.IsMissing(k) {
			name = bsonutil.TypeName(k.Type)
		}
		return errs.New(errs.Location40258, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: %s", name)
	}
	f := bsonutil.AsFloat64(k)
	if math.IsNaN(f) {
		return errs.New(errs.Location40259, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN")
	}
	if f < 0 {
		return errs.New(errs.Location40260, "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number")
	}
	return nil
}

// roundUp is the smallest value of the series above v (v itself when
// zero).
func (g *granularity) roundUp(v bsoncore.Value) bsoncore.Value {
	f := bsonutil.AsFloat64(v)
	if f == 0 {
		return v
	}
	if g.series == nil {
		if v.Type == bsoncore.TypeDouble {
			return powerOfTwo(int(math.Floor(math.Log2(f)) + 1))
		}
		return powerOfTwo(64 - bits.LeadingZeros64(uint64(bsonutil.AsInt64(v))))
	}
	s := g.series
	// The series' decade is scaled by a multiplier found by repeated
	// multiplication or division by ten, as mongod finds it, so that the
	// boundaries are the same doubles (224 × 0.1 is 22.400000000000002).
	mult := 1.0
	for f >= s[len(s)-1]*mult {
		mult *= 10
	}
	for f < s[0]*mult {
		prevMin := s[0] * mult
		mult /= 10
		if f >= s[len(s)-1]*mult {
			return expr.Double(prevMin)
		}
	}
	i := sort.Search(len(s), func(i int) bool { return f < s[i]*mult })
	return expr.Double(s[i] * mult)
}

// roundDown is the largest value of the series below v (v itself when
// zero).
func (g *granularity) roundDown(v bsoncore.Value) bsoncore.Value {
	f := bsonutil.AsFloat64(v)
	if f == 0 {
		return v
	}
	if g.series == nil {
		if v.Type == bsoncore.TypeDouble {
			return powerOfTwo(int(math.Ceil(math.Log2(f)) - 1))
		}
		n := uint64(bsonutil.AsInt64(v))
		exp := 63 - bits.LeadingZeros64(n)
		if n&(n-1) == 0 {
			exp-- // a power of two rounds down to the one below
		}
		return powerOfTwo(exp)
	}
	s := g.series
	mult := 1.0
	for f <= s[0]*mult {
		mult /= 10
	}
	for f > s[len(s)-1]*mult {
		prevMax := s[len(s)-1] * mult
		mult *= 10
		if f <= s[0]*mult {
			return expr.Double(prevMax)
		}
	}
	i := sort.Search(len(s), func(i int) bool { return s[i]*mult >= f })
	return expr.Double(s[i-1] * mult)
}

// powerOfTwo is 2 to the exp as mongod's $pow of two integers gives it:
// an int or a long while it fits, else (or for a negative exponent) a
// double.
func powerOfTwo(exp int) bsoncore.Value {
	switch {
	case exp < 0 || exp > 62:
		return expr.Double(math.Ldexp(1, exp))
	case exp <= 30:
		return expr.Int32(int32(1) << exp)
	default:
		return expr.Int64(int64(1) << exp)
	}
}
