package bucket

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
)

func openColl(t *testing.T) *mongo.Collection {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Client().Database("bucket").Collection("trades")
}

type trade struct {
	Seq    int    `bson:"seq"`
	Ticker string `bson:"ticker"`
}

func TestNextID(t *testing.T) {
	at := time.Unix(1698939791, 0)
	tests := []struct{ prev, want string }{
		{"", "123_1698939791"},
		{"123_1698939790", "123_1698939791"},
		{"123_1698939791", "123_1698939791_000001"},
		{"123_1698939791_000009", "123_1698939791_000010"},
		{"123_1698939799", "123_1698939799_000001"}, // clock behind
	}
	for _, tc := range tests {
		got := nextID("123", at, tc.prev)
		if got != tc.want {
			t.Errorf("nextID(%q) = %q, want %q", tc.prev, got, tc.want)
		}
		if tc.prev != "" && got <= tc.prev {
			t.Errorf("nextID(%q) = %q does not sort after it", tc.prev, got)
		}
	}
}

func TestAppendPages(t *testing.T) {
	ctx := context.Background()
	coll := openColl(t)
	sec := int64(1698349623)
	s := New(coll, WithSize(3), WithClock(func() time.Time { sec += 100; return time.Unix(sec, 0) }))
	for i := 0; i < 7; i++ {
		if err := s.Append(ctx, "123", trade{Seq: i, Ticker: "MDB"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append(ctx, "456", trade{Seq: 0, Ticker: "GOOG"}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Pages(ctx, "123")
	if err != nil || n != 3 {
		t.Fatalf("Pages = %d, %v; want 3", n, err)
	}
	wantPages := [][]int{{0, 1, 2}, {3, 4, 5}, {6}, nil}
	for p, want := range wantPages {
		items, err := s.Page(ctx, "123", p+1)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != len(want) {
			t.Fatalf("page %d: %d items, want %d", p+1, len(items), len(want))
		}
		for i, it := range items {
			if got := int(it.Lookup("seq").AsInt64()); got != want[i] {
				t.Fatalf("page %d item %d: seq %d, want %d", p+1, i, got, want[i])
			}
		}
	}
	// _id is owner_<epoch seconds of the first item>.
	var first bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "owner", Value: "123"}}).Decode(&first); err != nil {
		t.Fatal(err)
	}
	if first["_id"] != "123_1698349723" {
		t.Fatalf("first bucket _id %v", first["_id"])
	}
}

// TestConcurrentAppend: 32 goroutines append to one owner with a frozen
// clock (all buckets start in the same second): no bucket is overfilled,
// count matches the array, and every item is stored exactly once.
func TestConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	coll := openColl(t)
	for _, clock := range []struct {
		name string
		now  func() time.Time
	}{
		{"same second", func() time.Time { return time.Unix(1700000000, 0) }},
		{"real clock", time.Now},
	} {
		t.Run(clock.name, func(t *testing.T) {
			owner := map[string]string{"same second": "a", "real clock": "b"}[clock.name]
			s := New(coll, WithClock(clock.now))
			const workers, per = 32, 25
			var wg sync.WaitGroup
			var failed atomic.Int32
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; i < per; i++ {
						if err := s.Append(ctx, owner, trade{Seq: w*per + i}); err != nil {
							t.Error(err)
							failed.Add(1)
							return
						}
					}
				}(w)
			}
			wg.Wait()
			if failed.Load() > 0 {
				return
			}
			cur, err := coll.Find(ctx, bson.D{{Key: "owner", Value: owner}})
			if err != nil {
				t.Fatal(err)
			}
			var buckets []struct {
				ID      string  `bson:"_id"`
				Count   int     `bson:"count"`
				History []trade `bson:"history"`
			}
			if err := cur.All(ctx, &buckets); err != nil {
				t.Fatal(err)
			}
			seen := make(map[int]int)
			for _, b := range buckets {
				if b.Count != len(b.History) || b.Count > DefaultSize || b.Count == 0 {
					t.Errorf("bucket %s: count %d, %d items", b.ID, b.Count, len(b.History))
				}
				for _, it := range b.History {
					seen[it.Seq]++
				}
			}
			for i := 0; i < workers*per; i++ {
				if seen[i] != 1 {
					t.Errorf("item %d stored %d times", i, seen[i])
				}
			}
			if len(seen) != workers*per {
				t.Errorf("%d distinct items stored, want %d", len(seen), workers*per)
			}
			pages, err := s.Pages(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			if pages != len(buckets) || pages < workers*per/DefaultSize {
				t.Errorf("Pages = %d with %d buckets", pages, len(buckets))
			}
		})
	}
}
