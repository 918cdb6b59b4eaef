package engine

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkPlanCacheFind is a two-candidate find ({a, b} equalities over
// indexes on a and b) with a trial every time (the cache cleared before
// each query) and with the cached plan.
func BenchmarkPlanCacheFind(b *testing.B) {
	e := openTest(b, b.TempDir())
	twoIndexColl(b, e, 20000)
	spec := FindSpec{Filter: D(b, bson.D{{Key: "a", Value: 3}, {Key: "b", Value: 13}}), Limit: 1}
	for _, cached := range []bool{false, true} {
		name := "trial"
		if cached {
			name = "cached"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if !cached {
					cacheOf(e).clear(nil)
				}
				if got := findAll(b, e, "db", "c", spec); len(got) != 1 {
					b.Fatal(len(got))
				}
			}
		})
	}
}
