package engine

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestRangeCovers checks when an index shows that a date range matches
// every document, so a partitioned scan skips the filter.
func TestRangeCovers(t *testing.T) {
	t0 := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	ms := func(d time.Duration) bson.DateTime { return bson.DateTime(t0.Add(d).UnixMilli()) }
	rng := func(lo string, l time.Duration, hi string, h time.Duration) bson.D {
		return bson.D{{Key: "t", Value: bson.D{{Key: lo, Value: ms(l)}, {Key: hi, Value: ms(h)}}}}
	}
	setup := func(t *testing.T, key bson.D, sparse bool, docs ...bson.D) *Engine {
		e := openTest(t, "")
		for i := 0; i < 10; i++ {
			insert(t, e, "db", "c", bson.D{{Key: "t", Value: ms(time.Duration(i) * time.Second)}, {Key: "h", Value: i % 3}})
		}
		for _, d := range docs {
			insert(t, e, "db", "c", d)
		}
		if key != nil {
			if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, key), Sparse: sparse}); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	covers := func(t *testing.T, e *Engine, filter bson.D) bool {
		t.Helper()
		snap := e.db.NewSnapshot()
		defer snap.Close()
		return rangeCovers(snap.Reader(), e.cat.Load().lookup("db", "c"), D(t, filter))
	}
	tIdx := bson.D{{Key: "t", Value: 1}}
	day := 24 * time.Hour
	for _, c := range []struct {
		name   string
		key    bson.D
		sparse bool
		docs   []bson.D
		filter bson.D
		want   bool
	}{
		{"inside", tIdx, false, nil, rng("$gte", 0, "$lt", day), true},
		{"bounds reversed", tIdx, false, nil, bson.D{{Key: "t", Value: bson.D{{Key: "$lt", Value: ms(day)}, {Key: "$gte", Value: ms(0)}}}}, true},
		{"$gt the first", tIdx, false, nil, rng("$gt", 0, "$lt", day), false},
		{"$gt before the first", tIdx, false, nil, rng("$gt", -time.Millisecond, "$lt", day), true},
		{"$lt the last", tIdx, false, nil, rng("$gte", 0, "$lt", 9*time.Second), false},
		{"$lte the last", tIdx, false, nil, rng("$gte", 0, "$lte", 9*time.Second), true},
		{"one after", tIdx, false, []bson.D{{{Key: "t", Value: ms(day)}}}, rng("$gte", 0, "$lt", day), false},
		{"missing field", tIdx, false, []bson.D{{{Key: "h", Value: 1}}}, rng("$gte", 0, "$lt", day), false},
		{"null", tIdx, false, []bson.D{{{Key: "t", Value: nil}}}, rng("$gte", 0, "$lt", day), false},
		{"number", tIdx, false, []bson.D{{{Key: "t", Value: 5}}}, rng("$gte", 0, "$lt", day), false},
		{"timestamp", tIdx, false, []bson.D{{{Key: "t", Value: bson.Timestamp{T: 1, I: 1}}}}, rng("$gte", 0, "$lt", day), false},
		{"array inside", tIdx, false, []bson.D{{{Key: "t", Value: bson.A{ms(time.Second), ms(2 * time.Second)}}}}, rng("$gte", 0, "$lt", day), true},
		{"array partly outside", tIdx, false, []bson.D{{{Key: "t", Value: bson.A{ms(time.Second), ms(2 * day)}}}}, rng("$gte", 0, "$lt", day), false},
		{"empty array", tIdx, false, []bson.D{{{Key: "t", Value: bson.A{}}}}, rng("$gte", 0, "$lt", day), false},
		{"no index", nil, false, nil, rng("$gte", 0, "$lt", day), false},
		{"sparse index", tIdx, true, nil, rng("$gte", 0, "$lt", day), false},
		{"descending index", bson.D{{Key: "t", Value: -1}}, false, nil, rng("$gte", 0, "$lt", day), false},
		{"hashed index", bson.D{{Key: "t", Value: "hashed"}}, false, nil, rng("$gte", 0, "$lt", day), false},
		{"compound led by t", bson.D{{Key: "t", Value: 1}, {Key: "h", Value: 1}}, false, nil, rng("$gte", 0, "$lt", day), true},
		{"compound led by h", bson.D{{Key: "h", Value: 1}, {Key: "t", Value: 1}}, false, nil, rng("$gte", 0, "$lt", day), false},
		{"another field too", tIdx, false, nil, append(rng("$gte", 0, "$lt", day), bson.E{Key: "h", Value: 1}), false},
		{"one bound", tIdx, false, nil, bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: ms(0)}}}}, false},
		{"two lower bounds", tIdx, false, nil, bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: ms(0)}, {Key: "$gt", Value: ms(0)}}}}, false},
		{"number bounds", tIdx, false, nil, bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: 0}, {Key: "$lt", Value: 10}}}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := setup(t, c.key, c.sparse, c.docs...)
			if got := covers(t, e, c.filter); got != c.want {
				t.Fatalf("rangeCovers = %v, want %v", got, c.want)
			}
		})
	}
}

// TestFindPartitionsCovered checks that a partitioned scan whose range
// covers the collection (by its index) returns every document, and one
// that does not only the matching ones.
func TestFindPartitionsCovered(t *testing.T) {
	e := openTest(t, "")
	t0 := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	const n = MinPartitionDocs + 1000
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "t", Value: bson.DateTime(t0.Add(time.Duration(i) * time.Second).UnixMilli())}}
	}
	insert(t, e, "db", "c", docs...)
	if _, err := e.CreateIndex("db", "c", IndexSpec{Key: D(t, bson.D{{Key: "t", Value: 1}})}); err != nil {
		t.Fatal(err)
	}
	count := func(lo, hi time.Duration) (int, bool) {
		f := D(t, bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: bson.DateTime(t0.Add(lo).UnixMilli())},
			{Key: "$lt", Value: bson.DateTime(t0.Add(hi).UnixMilli())}}}})
		parts, err := e.FindPartitions(context.Background(), "db", "c", FindSpec{Filter: f}, 4)
		if err != nil || len(parts) < 2 {
			t.Fatalf("%d parts, %v", len(parts), err)
		}
		total, covered := 0, true
		for _, p := range parts {
			covered = covered && p.(*rangeScan).filter == nil
			for {
				d, err := p.Next()
				if err != nil {
					t.Fatal(err)
				}
				if d == nil {
					break
				}
				total++
			}
			p.Close()
		}
		return total, covered
	}
	if got, covered := count(0, 30*24*time.Hour); got != n || !covered {
		t.Fatalf("whole range: %d documents (covered %v), want %d, covered", got, covered, n)
	}
	if got, covered := count(0, time.Duration(n-10)*time.Second); got != n-10 || covered {
		t.Fatalf("all but 10: %d documents (covered %v), want %d, not covered", got, covered, n-10)
	}
}
