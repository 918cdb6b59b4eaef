package exec

import (
	"testing"

	"github.com/lodedb/lode/internal/query/plan"
)

// BenchmarkFetch measures IXSCAN > FETCH over an index whose order is
// unrelated to record order: a whole scan batched and unbatched, one
// group of it (sparser record ids per run), and a short limited query
// (the cost of opening the plan).
func BenchmarkFetch(b *testing.B) {
	r, ix := fetchFixture(b, 5000, nil)
	full := []plan.FieldBounds{{Path: "g", OIL: plan.FullOIL()}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
	g0 := []plan.FieldBounds{{Path: "g", OIL: plan.OIL{{Lo: i32(0), Hi: i32(0), LoInc: true, HiInc: true}}}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
	cases := []struct {
		name   string
		bounds []plan.FieldBounds
		batch  int
		limit  int64
	}{
		{"full/batched", full, MaxFetchBatch, 0},
		{"full/unbatched", full, 1, 0},
		{"group/batched", g0, MaxFetchBatch, 0},
		{"limit10/batched", full, MaxFetchBatch, 10},
		{"limit10/unbatched", full, 1, 10},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				scan := NewIxScan(r, ix, c.bounds, 1, false, false)
				fe := NewFetch(scan, r, testColl, nil, nil, false)
				fe.SetBatch(c.batch, c.limit)
				n := int64(0)
				for c.limit == 0 || n < c.limit {
					st, _, err := fe.Work()
					if err != nil {
						b.Fatal(err)
					}
					if st == EOF {
						break
					}
					if st == Advanced {
						n++
					}
				}
				fe.Close()
			}
		})
	}
}
