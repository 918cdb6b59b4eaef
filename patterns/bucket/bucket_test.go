package bucket

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

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

// TestItemTime: with WithItemTime, back-filled history gets bucket _ids
// from its own items' times (the seed's <owner>_<first item epoch
// seconds>), not from the clock at append time; items of one second that
// open two buckets get the _000001 suffix and keep page order.
func TestItemTime(t *testing.T) {
	ctx := context.Background()
	coll := openColl(t)
	type dated struct {
		Seq  int       `bson:"seq"`
		Date time.Time `bson:"date"`
	}
	s := New(coll, WithSize(2),
		WithClock(func() time.Time { return time.Unix(1900000000, 0) }), // "now", far after the items
		WithItemTime(func(item any) time.Time { return item.(dated).Date }))
	base := time.Date(2023, 11, 2, 15, 43, 11, 0, time.UTC) // 1698939791
	offsets := []time.Duration{0, time.Second, 5 * time.Second, 5*time.Second + 300*time.Millisecond, 5*time.Second + 600*time.Millisecond, time.Minute}
	for i, off := range offsets {
		if err := s.Append(ctx, "123", dated{Seq: i, Date: base.Add(off)}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		ID      string  `bson:"_id"`
		History []dated `bson:"history"`
	}
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	// Buckets of 2: [0s, 1s], [5s, 5.3s], [5.6s, 60s]; the third opens in
	// the same second as the second, so it is suffixed.
	want := []struct {
		id   string
		seqs []int
	}{
		{"123_1698939791", []int{0, 1}},
		{"123_1698939796", []int{2, 3}},
		{"123_1698939796_000001", []int{4, 5}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d buckets, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].ID != w.id || len(got[i].History) != len(w.seqs) {
			t.Fatalf("bucket %d = %s with %d items, want %s with %d", i, got[i].ID, len(got[i].History), w.id, len(w.seqs))
		}
		for k, seq := range w.seqs {
			if got[i].History[k].Seq != seq {
				t.Fatalf("bucket %s item %d: seq %d, want %d", w.id, k, got[i].History[k].Seq, seq)
			}
		}
	}
	// Without WithItemTime the clock names the bucket.
	plain := New(coll, WithClock(func() time.Time { return time.Unix(1900000000, 0) }))
	if err := plain.Append(ctx, "456", dated{Seq: 0, Date: base}); err != nil {
		t.Fatal(err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: "456_1900000000"}}); err != nil || n != 1 {
		t.Fatalf("clock-named bucket: count %d, %v", n, err)
	}
}
