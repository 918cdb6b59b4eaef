package server

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// parseMaxTimeMS reads a command's maxTimeMS the way mongod's
// parseMaxTimeMS does: a number, whose value saturated to a 64-bit
// integer must lie in [0, 2^31-1], and a double must be integral. Errors
// are BadValue with mongod's messages.
func parseMaxTimeMS(v bsoncore.Value) (int64, error) {
	if !bsonutil.IsNumber(v.Type) {
		return 0, errs.New(errs.BadValue, "maxTimeMS must be a number")
	}
	n := saturatedInt64(v)
	if n < 0 || n > math.MaxInt32 {
		return 0, errs.New(errs.BadValue, "%d value for maxTimeMS is out of range", n)
	}
	if v.Type == bsoncore.TypeDouble {
		if f := v.Double(); math.Floor(f) != f {
			return 0, errs.New(errs.BadValue, "maxTimeMS has non-integral value")
		}
	}
	return n, nil
}

// saturatedInt64 converts a number as BSONElement::safeNumberLong does:
// NaN is 0 and values beyond the int64 range clamp to its ends.
func saturatedInt64(v bsoncore.Value) int64 {
	switch v.Type {
	case bsoncore.TypeInt32:
		return int64(v.Int32())
	case bsoncore.TypeInt64:
		return v.Int64()
	}
	f := bsonutil.AsFloat64(v)
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}
