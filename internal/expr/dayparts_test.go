package expr

import (
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestUTCDateCache checks the UTC day cache of $year, $month and
// $dayOfMonth against Go's calendar over dates in and out of order,
// around day boundaries, before 1970 and at the ends of the date range,
// and that a timezone argument does not read the UTC day.
func TestUTCDateCache(t *testing.T) {
	var ms []int64
	for _, base := range []int64{0, -1, 86_399_999, 86_400_000, -86_400_000, -86_400_001,
		time.Date(1969, 12, 31, 23, 59, 59, 999e6, time.UTC).UnixMilli(),
		time.Date(1900, 2, 28, 23, 0, 0, 0, time.UTC).UnixMilli(),
		time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC).UnixMilli(),
		time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC).UnixMilli(),
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(),
		253402300799999, 253402300800000, // the last millisecond of 9999, the first of 10000
		maxDayCached - 1, maxDayCached, -maxDayCached, -maxDayCached + 1,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		for _, d := range []int64{0, 1, 1296, 3_600_000, 43_200_000, 86_399_999, 86_400_000, -1, -1296, -86_400_000} {
			if x := base + d; (d > 0) == (x > base) || d == 0 { // no overflow
				ms = append(ms, x)
			}
		}
	}
	for _, op := range []string{"$year", "$month", "$dayOfMonth"} {
		e, err := Parse(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument,
			Data: bsoncore.NewDocumentBuilder().AppendString(op, "$t").Build()}, NewParseContext())
		if err != nil {
			t.Fatal(err)
		}
		tz, err := Parse(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument,
			Data: bsoncore.NewDocumentBuilder().AppendDocument(op, bsoncore.NewDocumentBuilder().
				AppendString("date", "$t").AppendString("timezone", "+05:30").Build()).Build()}, NewParseContext())
		if err != nil {
			t.Fatal(err)
		}
		vars := NewVars(time.Now())
		ist := time.FixedZone("", 5*3600+1800)
		for _, pass := range [][]int64{ms, reversed(ms)} {
			for _, x := range pass {
				doc := bsoncore.NewDocumentBuilder().AppendDateTime("t", x).Build()
				for _, c := range []struct {
					e   Expr
					loc *time.Location
				}{{e, time.UTC}, {tz, ist}} {
					vars.NextDoc()
					got, err := c.e.Eval(doc, vars)
					if err != nil {
						t.Fatalf("%s of %d: %v", op, x, err)
					}
					y, m, d := time.UnixMilli(x).In(c.loc).Date()
					want := map[string]int{"$year": y, "$month": int(m), "$dayOfMonth": d}[op]
					if n, ok := got.Int32OK(); !ok || int(n) != want {
						t.Errorf("%s of %d in %v: %v, want %d", op, x, c.loc, got, want)
					}
				}
			}
		}
	}
}

func reversed(s []int64) []int64 {
	r := make([]int64, len(s))
	for i, x := range s {
		r[len(s)-1-i] = x
	}
	return r
}
