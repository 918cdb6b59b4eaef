package crud_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/test/testenv"
)

// BenchmarkDequeue measures findOneAndUpdate dequeue throughput with 16
// consumers on a backlog of LODE_BENCH_BACKLOG jobs (default 1,000,000).
func BenchmarkDequeue(b *testing.B) {
	backlog := 1000000
	if v := os.Getenv("LODE_BENCH_BACKLOG"); v != "" {
		backlog, _ = strconv.Atoi(v)
	}
	db, _ := testenv.Open(b, lode.WithClientOptions(options.Client().SetMaxPoolSize(128)))
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
	testenv.RunConcurrent(b, 16, func(_, _ int) error {
		return coll.FindOneAndUpdate(ctx, bson.D{{Key: "startTime", Value: nil}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: time.Now()}}}},
			options.FindOneAndUpdate().SetSort(bson.D{{Key: "createdOn", Value: 1}})).Err()
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "dequeues/s")
}
