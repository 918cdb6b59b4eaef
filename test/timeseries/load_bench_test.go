//go:build unix

package timeseries_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// BenchmarkEventLoad loads the eventlog benchmark's events ({time, host,
// path}, 50 hosts, 1000 paths, unordered batches of 10,000) into a
// plain collection followed by the seed's three index builds, and into a
// time series collection (time, host as meta), reporting the process CPU
// per event (client and server in one process: the client's share is
// the same in both).
//
//	go test -run '^$' -bench EventLoad -benchtime 1x ./test/timeseries/
func BenchmarkEventLoad(b *testing.B) {
	const n, batch = 300_000, 10_000
	hosts := make([]string, 50)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)
	}
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = fmt.Sprintf("/p/%d/item%d.html", i%37, i)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := 30 * 24 * time.Hour / n
	for _, mode := range []string{"plain", "timeseries-hours", "timeseries-seconds"} {
		b.Run(mode, func(b *testing.B) {
			for it := 0; it < b.N; it++ {
				db, err := lode.Open(b.TempDir(), lode.InProcess())
				if err != nil {
					b.Fatal(err)
				}
				d := db.Client().Database("bench")
				c := testenv.Ctx(b)
				switch mode {
				case "timeseries-hours":
					createTSb(b, d, "events", "hours")
				case "timeseries-seconds":
					createTSb(b, d, "events", "seconds")
				}
				coll := d.Collection("events")
				r := rand.New(rand.NewPCG(1, 3))
				docs := make([]any, 0, batch)
				cpu0 := cpuTime()
				t0 := time.Now()
				for i := 0; i < n; i++ {
					tm := start.Add(time.Duration(i) * step)
					doc := bsoncore.NewDocumentBuilder().AppendDateTime("time", tm.UnixMilli()).
						AppendString("host", hosts[r.IntN(len(hosts))]).AppendString("path", paths[r.IntN(len(paths))]).Build()
					docs = append(docs, bson.Raw(doc))
					if len(docs) == batch {
						if _, err := coll.InsertMany(c, docs, options.InsertMany().SetOrdered(false)); err != nil {
							b.Fatal(err)
						}
						docs = docs[:0]
					}
				}
				if mode == "plain" {
					for _, k := range []bson.D{{{Key: "path", Value: 1}}, {{Key: "time", Value: 1}}, {{Key: "host", Value: 1}, {Key: "time", Value: 1}}} {
						if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: k}); err != nil {
							b.Fatal(err)
						}
					}
				}
				cpu := cpuTime() - cpu0
				b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/event")
				b.ReportMetric(float64(time.Since(t0).Nanoseconds())/n, "wall-ns/event")
				st, err := testenv.RunCmd(b, d, bson.D{{Key: "collStats", Value: "events"}})
				if err == nil {
					b.ReportMetric(float64(st.Lookup("size").AsInt64()+st.Lookup("totalIndexSize").AsInt64())/n, "bytes/event")
				}
				db.Close()
			}
		})
	}
}

func createTSb(b *testing.B, d *mongo.Database, name, g string) {
	o := options.CreateCollection().SetTimeSeriesOptions(options.TimeSeries().SetTimeField("time").SetMetaField("host").SetGranularity(g))
	if err := d.CreateCollection(testenv.Ctx(b), name, o); err != nil {
		b.Fatal(err)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkInsertOne inserts events one command each (the eventlog's
// online writes) into a plain collection with the seed's indexes and
// into a time series collection: each insert rewrites the bucket it
// lands in, so this is the time series collection's worst case.
//
//	go test -run '^$' -bench InsertOne -benchtime 1x ./test/timeseries/
func BenchmarkInsertOne(b *testing.B) {
	const n = 20_000
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, mode := range []string{"plain", "timeseries", "plain-8clients", "timeseries-8clients"} {
		clients := 1
		if strings.HasSuffix(mode, "-8clients") {
			clients = 8
		}
		b.Run(mode, func(b *testing.B) {
			for it := 0; it < b.N; it++ {
				db, err := lode.Open(b.TempDir(), lode.InProcess())
				if err != nil {
					b.Fatal(err)
				}
				d := db.Client().Database("bench")
				c := testenv.Ctx(b)
				coll := d.Collection("events")
				if strings.HasPrefix(mode, "timeseries") {
					createTSb(b, d, "events", "hours")
				} else {
					for _, k := range []bson.D{{{Key: "path", Value: 1}}, {{Key: "time", Value: 1}}, {{Key: "host", Value: 1}, {Key: "time", Value: 1}}} {
						if _, err := coll.Indexes().CreateOne(c, mongo.IndexModel{Keys: k}); err != nil {
							b.Fatal(err)
						}
					}
				}
				cpu0 := cpuTime()
				t0 := time.Now()
				var wg sync.WaitGroup
				for w := 0; w < clients; w++ {
					wg.Add(1)
					go func(w int) {
						defer wg.Done()
						for i := w; i < n; i += clients {
							doc := bsoncore.NewDocumentBuilder().AppendDateTime("time", start.Add(time.Duration(i)*time.Second).UnixMilli()).
								AppendString("host", fmt.Sprintf("10.0.0.%d", i%50)).AppendString("path", fmt.Sprintf("/p/%d", i%1000)).Build()
							if _, err := coll.InsertOne(c, bson.Raw(doc)); err != nil {
								b.Error(err)
								return
							}
						}
					}(w)
				}
				wg.Wait()
				b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/n, "cpu-ns/event")
				b.ReportMetric(float64(time.Since(t0).Nanoseconds())/n, "wall-ns/event")
				db.Close()
			}
		})
	}
}
