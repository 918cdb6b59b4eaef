package exec

import (
	"testing"

	"github.com/lodedb/lode/internal/query/plan"
)

// BenchmarkFetch measures IXSCAN > FETCH over an index whose order is
// unrelated to record order: a whole scan batched and unbatched, one
// group of it (sparser record ids per run), and a short limited query
// (the cost of opening the plan); "cached" reads a snapshot, whose
// batched FETCH the record cache serves after the first run.
func BenchmarkFetch(b *testing.B) {
	latest, snap, ix := fetchFixtureSnap(b, 5000, nil)
	full := []plan.FieldBounds{{Path: "g", OIL: plan.FullOIL()}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
	g0 := []plan.FieldBounds{{Path: "g", OIL: plan.OIL{{Lo: i32(0), Hi: i32(0), LoInc: true, HiInc: true}}}, {Path: "ts", Desc: true, OIL: plan.FullOIL()}}
	cases := []struct {
		name   string
		bounds []plan.FieldBounds
		batch  int
		limit  int64
		cached bool
	}{
		{"full/batched", full, MaxFetchBatch, 0, false},
		{"full/cached", full, MaxFetchBatch, 0, true},
		{"group/cached", g0, MaxFetchBatch, 0, true},
		{"full/unbatched", full, 1, 0, false},
		{"group/batched", g0, MaxFetchBatch, 0, false},
		{"limit10/batched", full, MaxFetchBatch, 10, false},
		{"limit10/unbatched", full, 1, 10, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r := latest
			if c.cached {
				r = snap
			}
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
