package exec

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"
)

// CountScan is COUNT_SCAN: it counts the entries of one contiguous index
// range without reading documents. The planner uses it for a count whose
// filter the index bounds answer exactly with a single range.
type CountScan struct {
	*IxScan
}

// NewCountScan returns a COUNT_SCAN over ix within bounds.
func NewCountScan(r storage.Reader, ix *plan.Index, bounds []plan.FieldBounds, timing bool) *CountScan {
	s := NewIxScan(r, ix, bounds, 1, false, timing)
	s.name = "COUNT_SCAN"
	return &CountScan{s}
}

// CanCountScan reports whether bounds form a single contiguous range with
// no per-key checks.
func CanCountScan(bounds []plan.FieldBounds) bool {
	sp := buildScanPlan(bounds)
	return len(sp.ranges) == 1 && len(sp.checks) == 0
}

// explain prints COUNT_SCAN as mongod 7.0 does: keysExamined (with
// execution stats), the index description, then indexBounds holding
// startKey, startKeyInclusive, endKey and endKeyInclusive.
func (s *CountScan) explain(b *bsoncore.DocumentBuilder, execStats bool) {
	if execStats {
		b.AppendInt64("keysExamined", s.keysExamined)
	}
	appendIndexInfo(b, s.ix)
	start, end := bsoncore.NewDocumentBuilder(), bsoncore.NewDocumentBuilder()
	startInc, endInc := true, true
	for _, f := range s.bounds {
		iv := f.OIL[0]
		lo, hi, li, hiInc := iv.Lo, iv.Hi, iv.LoInc, iv.HiInc
		if f.Desc {
			lo, hi, li, hiInc = hi, lo, hiInc, li
		}
		start.AppendValue(f.Path, lo)
		end.AppendValue(f.Path, hi)
		startInc = startInc && li
		endInc = endInc && hiInc
	}
	b.AppendDocument("indexBounds", bsoncore.NewDocumentBuilder().
		AppendDocument("startKey", start.Build()).
		AppendBoolean("startKeyInclusive", startInc).
		AppendDocument("endKey", end.Build()).
		AppendBoolean("endKeyInclusive", endInc).Build())
}
