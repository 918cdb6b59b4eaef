package lode_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/lodedb/lode"
)

// benchClients runs b.N operations spread over n concurrent clients.
func benchClients(b *testing.B, n int, op func(worker, i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				if err := op(w, i); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
}

func benchOpen(b *testing.B) *lode.DB {
	b.Helper()
	db, err := lode.Open(b.TempDir(), lode.WithClientOptions(options.Client().SetMaxPoolSize(128)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// BenchmarkInsertSingle measures single-document inserts with j:true and
// w:1 at 1, 16 and 64 concurrent clients, reporting fsyncs per
// acknowledged write.
func BenchmarkInsertSingle(b *testing.B) {
	for _, wc := range []struct {
		name string
		wc   *writeconcern.WriteConcern
	}{{"j=true", writeconcern.Journaled()}, {"w=1", writeconcern.W1()}} {
		for _, clients := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", wc.name, clients), func(b *testing.B) {
				db := benchOpen(b)
				coll := db.Client().Database("bench").Collection("ins", options.Collection().SetWriteConcern(wc.wc))
				before := lodeMetric(b, db, "syncs")
				start := time.Now()
				benchClients(b, clients, func(w, i int) error {
					_, err := coll.InsertOne(context.Background(), bson.D{{Key: "w", Value: w}, {Key: "i", Value: i}, {Key: "payload", Value: "0123456789abcdef"}})
					return err
				})
				el := time.Since(start)
				syncs := lodeMetric(b, db, "syncs") - before
				b.ReportMetric(float64(b.N)/el.Seconds(), "writes/s")
				b.ReportMetric(float64(syncs)/float64(b.N), "fsyncs/write")
			})
		}
	}
}

// BenchmarkDequeue measures findOneAndUpdate dequeue throughput with 16
// consumers on a backlog of LODE_BENCH_BACKLOG jobs (default 1,000,000).
func BenchmarkDequeue(b *testing.B) {
	backlog := 1000000
	if v := os.Getenv("LODE_BENCH_BACKLOG"); v != "" {
		backlog, _ = strconv.Atoi(v)
	}
	db := benchOpen(b)
	ctx := context.Background()
	coll := db.Client().Database("work").Collection("queue")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "startTime", Value: 1}, {Key: "createdOn", Value: 1}}}); err != nil {
		b.Fatal(err)
	}
	base := time.Now().Add(-24 * time.Hour)
	batch := make([]any, 0, 1000)
	for i := 0; i < backlog; i++ {
		batch = append(batch, bson.D{{Key: "startTime", Value: nil}, {Key: "createdOn", Value: base.Add(time.Duration(i) * time.Microsecond)},
			{Key: "priority", Value: i % 5}, {Key: "payload", Value: bson.D{{Key: "n", Value: i}}}})
		if len(batch) == cap(batch) || i == backlog-1 {
			if _, err := coll.InsertMany(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if b.N > backlog {
		b.N = backlog
	}
	start := time.Now()
	benchClients(b, 16, func(_, _ int) error {
		return coll.FindOneAndUpdate(ctx, bson.D{{Key: "startTime", Value: nil}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: time.Now()}}}},
			options.FindOneAndUpdate().SetSort(bson.D{{Key: "createdOn", Value: 1}})).Err()
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "dequeues/s")
}
