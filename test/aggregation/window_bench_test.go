package aggregation_test

import (
	"math"
	"math/rand"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestWindowMovingAverage is the acceptance measure: a 7-day
// moving average ($avg over range [-7, 0] days) per key over N documents
// spread over a year, with memory bounded. N comes from
// LODE_WINDOW_DOCS (default 20,000; 1,000,000 under LODE_ACCEPTANCE=1):
//
//	LODE_WINDOW_DOCS=1000000 go test -run TestWindowMovingAverage -v -timeout 60m ./test/aggregation
//
// The collection has an index on {k: 1, ts: 1}, so the $sort the stage
// needs is answered by the index and the stage streams; its memory limit
// (internalDocumentSourceSetWindowFieldsMaxMemoryBytes) is set to 8 MB
// with allowDiskUse false, so holding more than a window's documents
// would fail with 5414201. It logs the load and query times, the Go
// heap's in-use high-water mark while the query ran (server and client
// share the process; it includes garbage not yet collected) and the
// high-water mark of the live heap that each GC marked, then explains
// the pipeline at executionStats and logs the stage's own high-water mark
// (maxTotalMemoryUsageBytes: its buffered documents and window states).
func TestWindowMovingAverage(t *testing.T) {
	n := testenv.Size(20000, 1000000)
	if s := os.Getenv("LODE_WINDOW_DOCS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	_, d := testenv.Open(t)
	coll := d.Collection("series")
	const keys = 3
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	step := 365 * 24 * time.Hour / time.Duration(n)
	rng := rand.New(rand.NewSource(7))
	ts := make([][]int64, keys)
	vs := make([][]float64, keys)
	start := time.Now()
	testenv.InsertBatches(t, coll, n, func(i int) any {
		k := rng.Intn(keys)
		at := base.Add(time.Duration(i) * step)
		v := float64(rng.Intn(10000)) / 100
		ts[k] = append(ts[k], at.UnixMilli())
		vs[k] = append(vs[k], v)
		return bson.D{{Key: "_id", Value: i}, {Key: "k", Value: k}, {Key: "ts", Value: at}, {Key: "v", Value: v}}
	})
	testenv.CreateIndex(t, coll, bson.D{{Key: "k", Value: 1}, {Key: "ts", Value: 1}})
	t.Logf("loaded %d documents in %v", n, time.Since(start))
	testenv.SetParameter(t, d, "internalDocumentSourceSetWindowFieldsMaxMemoryBytes", 8<<20)

	var peak, peakLive atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			metrics.Read(live)
			if v := live[0].Value.Uint64(); v > peakLive.Load() {
				peakLive.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start = time.Now()
	pipeline := bson.A{bson.D{{Key: "$setWindowFields", Value: bson.D{
		{Key: "partitionBy", Value: "$k"}, {Key: "sortBy", Value: bson.D{{Key: "ts", Value: 1}}},
		{Key: "output", Value: bson.D{{Key: "ma", Value: bson.D{{Key: "$avg", Value: "$v"},
			{Key: "window", Value: bson.D{{Key: "range", Value: bson.A{-7, 0}}, {Key: "unit", Value: "day"}}}}}}},
	}}}}
	ctx := testenv.Ctx(t)
	cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetAllowDiskUse(false).SetBatchSize(10000))
	if err != nil {
		t.Fatal(err)
	}
	got, checked := 0, 0
	pos := make([]int, keys)
	for cur.Next(ctx) {
		// Raw lookups: decoding into a struct allocates a reader per
		// document on the client side, which would dominate the heap.
		k := int(cur.Current.Lookup("k").AsInt64())
		ma := cur.Current.Lookup("ma").Double()
		i := pos[k]
		pos[k]++
		got++
		if i%997 == 0 {
			checked++
			want := movingAvg(ts[k], vs[k], i)
			if math.Abs(ma-want) > 1e-9*math.Max(1, want) {
				t.Fatalf("k %d position %d: ma %v, want %v", k, i, ma, want)
			}
		}
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if got != n {
		t.Fatalf("got %d documents, want %d", got, n)
	}
	// The stage's own high-water mark, from explain (a second run).
	res := testenv.Explain(t, d, bson.D{{Key: "aggregate", Value: "series"}, {Key: "pipeline", Value: pipeline},
		{Key: "allowDiskUse", Value: false}, {Key: "cursor", Value: bson.D{}}}, "executionStats")
	var stageMem int64
	stages, _ := res.Lookup("stages").Array().Values()
	for _, st := range stages {
		if v, err := st.Document().LookupErr("maxTotalMemoryUsageBytes"); err == nil {
			stageMem = v.AsInt64()
		}
	}
	if stageMem <= 0 || stageMem > 8<<20 {
		t.Fatalf("explain's maxTotalMemoryUsageBytes %d, want (0, 8 MB]", stageMem)
	}
	t.Logf("$_internalSetWindowFields held at most %d bytes (explain's maxTotalMemoryUsageBytes)", stageMem)
	t.Logf("7-day moving average over %d documents (%d partitions): %v, %.0f docs/s; Go heap in use: %.1f MB before, %.1f MB peak; live heap (marked at each GC) peak %.1f MB; %d results checked",
		n, keys, elapsed, float64(n)/elapsed.Seconds(), float64(before.HeapInuse)/(1<<20), float64(peak.Load())/(1<<20), float64(peakLive.Load())/(1<<20), checked)
}

// movingAvg averages the values of the documents of one key within the 7
// days up to the i-th one's time.
func movingAvg(ts []int64, vs []float64, i int) float64 {
	lo := ts[i] - 7*24*3600*1000
	var sum float64
	n := 0
	for j := i; j >= 0 && ts[j] >= lo; j-- {
		sum += vs[j]
		n++
	}
	for j := i + 1; j < len(ts) && ts[j] == ts[i]; j++ {
		sum += vs[j]
		n++
	}
	return sum / float64(n)
}

var _ = mongo.Pipeline{}
