package exec

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// BenchmarkCollScan measures COLLSCAN over 100k records, unfiltered and
// with a filter that keeps a third of them, both ways.
func BenchmarkCollScan(b *testing.B) {
	r, _ := fetchFixture(b, 100000, nil)
	fdoc := bsoncore.NewDocumentBuilder().AppendInt32("g", 1).Build()
	f, err := query.Parse(fdoc)
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name   string
		filter *query.Filter
		dir    int
	}{
		{"all", nil, 1},
		{"filter", f, 1},
		{"filter/backward", f, -1},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s := NewCollScan(r, testColl, c.dir, c.filter, fdoc, false)
				for {
					st, _, err := s.Work()
					if err != nil {
						b.Fatal(err)
					}
					if st == EOF {
						break
					}
				}
				s.Close()
			}
		})
	}
}
