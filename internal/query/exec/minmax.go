package exec

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query/plan"
)

// A find's min and max (plan.KeyRange) bound the whole key in index
// order, not each field: IXSCAN reads the one keystring range from min
// (inclusive) to max (exclusive) and checks no field on its own.

// setKeyRange makes s scan kr instead of its bounds.
func (s *IxScan) setKeyRange(kr *plan.KeyRange) {
	s.keyRange = kr
	s.sp = scanPlan{ranges: []keyRange{{start: kr.Lo, end: kr.Hi}}}
}

// keyRangeBounds renders a min/max scan's indexBounds as mongod does a
// simple range: startKey (min, or the index's first key) inclusive and
// endKey (max, or its last key) exclusive.
func keyRangeBounds(ix *plan.Index, kr *plan.KeyRange) bsoncore.Document {
	start, end := kr.Min, kr.Max
	if start == nil {
		start = extremeKey(ix, false)
	}
	if end == nil {
		end = extremeKey(ix, true)
	}
	return bsoncore.NewDocumentBuilder().
		AppendDocument("startKey", start).
		AppendBoolean("startKeyInclusive", true).
		AppendDocument("endKey", end).
		AppendBoolean("endKeyInclusive", false).Build()
}

// extremeKey returns the lowest key of ix in its order (MinKey for an
// ascending field, MaxKey for a descending one), or with last the highest.
func extremeKey(ix *plan.Index, last bool) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for _, f := range ix.Fields {
		if f.Desc != last {
			b.AppendMaxKey(f.Path)
		} else {
			b.AppendMinKey(f.Path)
		}
	}
	return b.Build()
}

// appendRangeRecords appends explain's minRecord and maxRecord for a
// clustered collection's min/max: the _id values given.
func appendRangeRecords(b *bsoncore.DocumentBuilder, kr *plan.KeyRange) {
	if v, err := kr.Min.LookupErr("_id"); err == nil {
		b.AppendValue("minRecord", v)
	}
	if v, err := kr.Max.LookupErr("_id"); err == nil {
		b.AppendValue("maxRecord", v)
	}
}
