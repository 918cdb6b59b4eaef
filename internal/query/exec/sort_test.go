package exec

import (
	"fmt"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/query"
)

// TestSortLimitedIsStableTopK: a limited SORT returns the first limit
// entries of a stable sort of its input (ties in input order), for
// limits below, around and above its trim threshold, on a key with many
// ties ({g: 1}: three values) and one without ({ts: -1}).
func TestSortLimitedIsStableTopK(t *testing.T) {
	r, _ := fetchFixture(t, 3000, nil)
	var all []bsoncore.Document
	s := NewCollScan(r, testColl, 1, nil, nil, false)
	for {
		st, m, err := s.Work()
		if err != nil {
			t.Fatal(err)
		}
		if st == EOF {
			break
		}
		if st == Advanced {
			all = append(all, append(bsoncore.Document(nil), m.Doc...))
		}
	}
	for _, field := range []string{"g", "ts"} {
		dir := int32(1)
		if field == "ts" {
			dir = -1
		}
		pattern := bsoncore.NewDocumentBuilder().AppendInt32(field, dir).Build()
		spec, err := query.ParseSort(pattern)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]bsoncore.Document(nil), all...)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := want[i].Lookup(field).Int32(), want[j].Lookup(field).Int32()
			if dir < 0 {
				return a > b
			}
			return a < b
		})
		for _, limit := range []int64{1, 2, 7, 64, 65, 200, 2999, 3000, 5000} {
			srt := NewSort(NewCollScan(r, testColl, 1, nil, nil, false), spec, pattern, SortOptions{Limit: limit}, false)
			var got []string
			for {
				st, m, err := srt.Work()
				if err != nil {
					t.Fatal(err)
				}
				if st == EOF {
					break
				}
				if st == Advanced {
					got = append(got, fmt.Sprint(m.Doc.Lookup("_id")))
				}
			}
			n := min(int(limit), len(want))
			if len(got) != n {
				t.Fatalf("sort %s limit %d: %d results, want %d", pattern, limit, len(got), n)
			}
			for i := range n {
				if w := fmt.Sprint(want[i].Lookup("_id")); got[i] != w {
					t.Fatalf("sort %s limit %d: result %d is _id %s, want %s", pattern, limit, i, got[i], w)
				}
			}
		}
	}
}
