package aggregation_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
)

// The event log's "hits per path per day" benchmark (patterns/eventlog). The data set size comes
// from LODE_BENCH_EVENTS (default 200,000; the recorded run uses
// 10,000,000): events spread evenly over 30 days in October 2000, 100
// paths, 10 hosts, with an index on time.
//
//	LODE_BENCH_EVENTS=10000000 go test -run '^$' -bench HitsPerPathPerDay -benchtime 5x -timeout 60m ./test/aggregation
var hitsData struct {
	once   sync.Once
	db     *lode.DB
	coll   *mongo.Collection
	n      int
	loaded time.Duration
	err    error
}

const hitsDays = 30

func hitsCollection(b *testing.B) *mongo.Collection {
	hitsData.once.Do(func() {
		n := 200000
		if s := os.Getenv("LODE_BENCH_EVENTS"); s != "" {
			n, _ = strconv.Atoi(s)
		}
		dir, err := os.MkdirTemp("", "lode-bench-hits-")
		if err != nil {
			hitsData.err = err
			return
		}
		db, err := lode.Open(dir)
		if err != nil {
			hitsData.err = err
			return
		}
		hitsData.db, hitsData.n = db, n
		coll := db.Client().Database("event_db").Collection("events")
		ctx := context.Background()
		start := time.Now()
		base := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
		step := time.Duration(hitsDays) * 24 * time.Hour / time.Duration(n)
		const batch = 5000
		docs := make([]any, 0, batch)
		for i := 0; i < n; i++ {
			docs = append(docs, bson.D{
				{Key: "host", Value: fmt.Sprintf("10.0.0.%d", i%10)},
				{Key: "time", Value: base.Add(time.Duration(i) * step)},
				{Key: "path", Value: fmt.Sprintf("/page/%d", (i*7919)%100)},
				{Key: "referer", Value: "http://www.example.com/start.html"},
				{Key: "user_agent", Value: "Mozilla/4.08 [en] (Win98; I ;Nav)"},
			})
			if len(docs) == batch || i == n-1 {
				if _, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
					hitsData.err = err
					return
				}
				docs = docs[:0]
			}
		}
		if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "time", Value: 1}}}); err != nil {
			hitsData.err = err
			return
		}
		hitsData.loaded = time.Since(start)
		hitsData.coll = coll
	})
	if hitsData.err != nil {
		b.Fatal(hitsData.err)
	}
	return hitsData.coll
}

func hitsPipeline(from, to time.Time) bson.A {
	return bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: to}}}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "path", Value: 1}, {Key: "date", Value: bson.D{
			{Key: "y", Value: bson.D{{Key: "$year", Value: "$time"}}},
			{Key: "m", Value: bson.D{{Key: "$month", Value: "$time"}}},
			{Key: "d", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}}}}}}},
		bson.D{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$date.y"}, {Key: "m", Value: "$date.m"}, {Key: "d", Value: "$date.d"}}},
			{Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
}

// peakHeap samples the Go heap in use until stop is closed and returns the
// peak above the starting level: an upper bound of what the query held.
func peakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base, peak := ms.HeapInuse, ms.HeapInuse
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				if peak < base {
					peak = base
				}
				out <- peak - base
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak {
					peak = ms.HeapInuse
				}
			}
		}
	}()
	return out
}

func benchHits(b *testing.B, days int) {
	coll := hitsCollection(b)
	from := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, days)
	ctx := context.Background()
	var times []time.Duration
	var peak uint64
	groups := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		stop := make(chan struct{})
		heap := peakHeap(stop)
		start := time.Now()
		cur, err := coll.Aggregate(ctx, hitsPipeline(from, to))
		if err != nil {
			b.Fatal(err)
		}
		var rows []bson.Raw
		if err := cur.All(ctx, &rows); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		close(stop)
		if p := <-heap; p > peak {
			peak = p
		}
		groups = len(rows)
		total := int64(0)
		for _, r := range rows {
			total += r.Lookup("hits").AsInt64()
		}
		if want := int64(hitsData.n) * int64(days) / hitsDays; total < want-1 || total > want+1 {
			b.Fatalf("hits sum %d, want about %d", total, want)
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(groups), "groups")
	b.Logf("events=%d load=%s days=%d median=%s groups=%d peak heap above baseline=%.1f MiB",
		hitsData.n, hitsData.loaded.Round(time.Second), days, times[len(times)/2], groups, float64(peak)/(1<<20))
}

func BenchmarkHitsPerPathPerDay(b *testing.B) {
	b.Run("month", func(b *testing.B) { benchHits(b, 30) })
	b.Run("week", func(b *testing.B) { benchHits(b, 7) })
}
