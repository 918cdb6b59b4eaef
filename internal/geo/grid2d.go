package geo

import (
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/errs"
)

// Grid2DFields are the index specification fields that set a 2d index's
// grid.
var Grid2DFields = []string{"bits", "min", "max"}

// ParseGrid2D reads a 2d index's bits, min and max from spec (an index
// specification, or the subset of it the catalog keeps), as mongod's
// GeoHashConverter::createFromDoc does: a missing field takes its
// default, a non-number fails with InvalidOptions ("wrong type for
// 'bits' field, expected number, found bits: ..."), bits is truncated to
// an integer, and the values are checked by NewGrid2D.
func ParseGrid2D(spec bsoncore.Document) (*Grid2D, error) {
	bits, min, max := Hash2DBits, Hash2DMin, Hash2DMax
	for _, name := range Grid2DFields {
		v, err := spec.LookupErr(name)
		if err != nil {
			continue
		}
		if !bsonutil.IsNumber(v.Type) {
			return nil, errs.New(errs.InvalidOptions, "wrong type for '%s' field, expected number, found %s", name, bsonutil.FormatElem(name, v, bsonutil.Style{}))
		}
		f := bsonutil.AsFloat64(v)
		switch name {
		case "bits":
			bits = numberInt(f)
		case "min":
			min = f
		case "max":
			max = f
		}
	}
	if bits == Hash2DBits && min == Hash2DMin && max == Hash2DMax {
		return DefaultGrid2D, nil
	}
	return NewGrid2D(bits, min, max)
}

// numberInt truncates a number to a 32-bit integer, saturating (NaN is 0).
func numberInt(f float64) int {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int(f)
}

// Grid2DSpec returns the bits, min and max elements of spec as given
// (nil when it has none), for the catalog and listIndexes.
func Grid2DSpec(spec bsoncore.Document) bsoncore.Document {
	var b []byte
	for _, name := range Grid2DFields {
		if v, err := spec.LookupErr(name); err == nil {
			if b == nil {
				_, b = bsoncore.AppendDocumentStart(nil)
			}
			b = bsoncore.AppendValueElement(b, name, v)
		}
	}
	if b == nil {
		return nil
	}
	b, _ = bsoncore.AppendDocumentEnd(b, 0)
	return b
}
