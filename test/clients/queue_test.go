package clients

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
)

// queueJobs returns the number of jobs for the claim test: LODE_QUEUE_JOBS
// if set, else the acceptance size of 100,000 jobs (about 33 s per mode)
// under LODE_ACCEPTANCE=1, else 5,000 (2,000 with -short).
func queueJobs(t *testing.T) int {
	if v := os.Getenv("LODE_QUEUE_JOBS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if testing.Short() {
		return 2000
	}
	if os.Getenv("LODE_ACCEPTANCE") != "" {
		return 100000
	}
	return 5000
}

// TestQueueClaimExactlyOnce: 64 goroutines claim every job with
// findOneAndUpdate, FIFO or by priority; each job is claimed exactly once
// and each consumer sees its claims in queue order.
func TestQueueClaimExactlyOnce(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"fifo", "priority"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // each mode has its own server
			claimAll(t, mode, queueJobs(t))
		})
	}
}

func claimAll(t *testing.T, mode string, jobs int) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI(s.uri()).SetMaxPoolSize(80))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	coll := client.Database("work").Collection("queue")
	sort := bson.D{{Key: "createdOn", Value: 1}}
	index := bson.D{{Key: "startTime", Value: 1}, {Key: "createdOn", Value: 1}}
	if mode == "priority" {
		sort = bson.D{{Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}
		index = bson.D{{Key: "startTime", Value: 1}, {Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: index}); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour)
	batch := make([]any, 0, 1000)
	for i := 0; i < jobs; i++ {
		batch = append(batch, bson.D{{Key: "_id", Value: i}, {Key: "startTime", Value: nil}, {Key: "endTime", Value: nil},
			{Key: "createdOn", Value: base.Add(time.Duration(i) * time.Millisecond)}, {Key: "priority", Value: i % 5},
			{Key: "payload", Value: bson.D{{Key: "n", Value: i}}}})
		if len(batch) == cap(batch) || i == jobs-1 {
			if _, err := coll.InsertMany(ctx, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	claimed := make([]atomic.Int32, jobs)
	var total atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	start := time.Now()
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lastPrio, lastID = 1 << 30, -1
			for {
				var job struct {
					ID       int `bson:"_id"`
					Priority int `bson:"priority"`
				}
				err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "startTime", Value: nil}},
					bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: time.Now()}}}},
					options.FindOneAndUpdate().SetSort(sort).SetReturnDocument(options.After)).Decode(&job)
				if err == mongo.ErrNoDocuments {
					return
				}
				if err != nil {
					errc <- err
					return
				}
				if claimed[job.ID].Add(1) != 1 {
					errc <- fmt.Errorf("job %d claimed twice", job.ID)
					return
				}
				total.Add(1)
				// One consumer's claims follow the queue order.
				if mode == "fifo" && job.ID < lastID {
					errc <- fmt.Errorf("FIFO consumer got job %d after %d", job.ID, lastID)
					return
				}
				if mode == "priority" && (job.Priority > lastPrio || job.Priority == lastPrio && job.ID < lastID) {
					errc <- fmt.Errorf("priority consumer got job %d (p%d) after %d (p%d)", job.ID, job.Priority, lastID, lastPrio)
					return
				}
				lastPrio, lastID = job.Priority, job.ID
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if n := total.Load(); n != int64(jobs) {
		t.Fatalf("claimed %d jobs, want %d", n, jobs)
	}
	t.Logf("%s: 64 consumers claimed %d jobs in %v", mode, jobs, time.Since(start))
}
