package scenarios

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/patterns/queue"
)

// jobPayload is seed 004's sample job payload.
func jobPayload(i int) bson.D {
	return bson.D{
		{Key: "type", Value: "convertImage"},
		{Key: "source", Value: "/images/image.png"},
		{Key: "output", Value: "/images/image.jpg"},
		{Key: "n", Value: i},
	}
}

// queueSetup drops the queue, preloads waiting jobs and creates the
// FIFO, priority and TTL indexes.
func queueSetup(ctx context.Context, db *mongo.Database, p sim.Params, progress sim.Progress) error {
	c := coll(db, p)
	if err := drop(ctx, c, p); err != nil {
		return err
	}
	base := time.Now().Add(-time.Hour)
	err := preload(ctx, c, p.Int("preload", 0), func(i int) any {
		return bson.D{
			{Key: "_id", Value: bson.NewObjectID()},
			{Key: "startTime", Value: nil},
			{Key: "endTime", Value: nil},
			{Key: "createdOn", Value: base.Add(time.Duration(i) * time.Millisecond)},
			{Key: "priority", Value: 1 + i%10},
			{Key: "payload", Value: jobPayload(i)},
			{Key: "attempts", Value: 0},
		}
	}, progress)
	if err != nil {
		return err
	}
	claims.Store(claimKey(db, p), new(atomic.Int64))
	pubs.Store(claimKey(db, p), new(published))
	return withIndexes(p, func() error { return queue.New(c).EnsureIndexes(ctx, 24*time.Hour) })
}

// claims counts the jobs claimed from each preloaded queue (keyed by
// database and collection) since its setup, across all processes.
var claims sync.Map // string -> *atomic.Int64

func claimKey(db *mongo.Database, p sim.Params) string {
	return db.Name() + "." + p.String("collection", "sim")
}

// fetchOp claims a job with next and, when finish=true, finishes it. An
// empty queue is not an error (the consumer polled and found nothing)
// unless the setup preloaded more jobs than have been claimed so far:
// then the claim missed waiting jobs, and the operation fails.
func fetchOp(db *mongo.Database, p sim.Params, next func(*queue.Queue, context.Context) (*queue.Job, error)) sim.Op {
	q := queue.New(coll(db, p))
	finish := p.Bool("finish", false)
	preloaded := int64(p.Int("preload", 0))
	c, _ := claims.LoadOrStore(claimKey(db, p), new(atomic.Int64))
	claimed := c.(*atomic.Int64)
	return func(ctx context.Context) error {
		j, err := next(q, ctx)
		if errors.Is(err, queue.ErrEmpty) {
			if n := claimed.Load(); n < preloaded {
				return fmt.Errorf("queue empty after %d of %d preloaded jobs were claimed", n, preloaded)
			}
			return nil
		}
		if err != nil {
			return err
		}
		claimed.Add(1)
		if finish {
			return q.Finish(ctx, j.ID)
		}
		return nil
	}
}

func init() {
	sim.Register(&sim.Scenario{
		Name: "publish_to_queues",
		Seed: "004",
		Description: "Publishers on a work queue with the seed's indexes {startTime: 1, createdOn: 1}, " +
			"{startTime: 1, priority: -1, createdOn: 1} and the TTL index on endTime. Op: queue.Publish of the seed's convertImage job with a random priority 1-10 " +
			"(the payload also carries sentAt, the publisher's clock in Unix nanoseconds just before the insert, for subscribe_to_queue_changes).",
		Defaults: sim.Params{"collection": "queue", "preload": 0, "indexes": true},
		Setup:    queueSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			q := queue.New(coll(db, p))
			pub := publishedOf(db, p)
			return func(ctx context.Context) error {
				payload := append(jobPayload(rand.IntN(1_000_000)), bson.E{Key: "sentAt", Value: time.Now().UnixNano()})
				id, err := q.Publish(ctx, payload, 1+rand.IntN(10))
				if err == nil {
					pub.acked(id, time.Now())
				}
				return err
			}, nil
		},
		Teardown: dropTeardown,
	})
	sim.Register(&sim.Scenario{
		Name: "fetch_from_queue_by_fifo",
		Seed: "004",
		Description: "Consumers claiming the oldest waiting job. Op: queue.NextFIFO, the seed's findAndModify " +
			"{query: {startTime: null}, sort: {createdOn: 1}, update: {$set: {startTime: now}}}; with finish=true also queue.Finish. " +
			"An empty queue counts as a successful poll, unless fewer than `preload` jobs were claimed (then it is an error).",
		Users:    300,
		Defaults: sim.Params{"collection": "queue", "preload": 10000, "finish": false, "indexes": true},
		Setup:    queueSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			return fetchOp(db, p, (*queue.Queue).NextFIFO), nil
		},
		Teardown: dropTeardown,
	})
	sim.Register(&sim.Scenario{
		Name: "fetch_from_queue_by_priority",
		Seed: "004",
		Description: "Consumers claiming the highest-priority waiting job. Op: queue.NextByPriority, the seed's findAndModify " +
			"sorted {priority: -1, createdOn: 1}; with finish=true also queue.Finish. An empty queue counts as a successful poll, unless fewer than `preload` jobs were claimed (then it is an error).",
		Users:    300,
		Defaults: sim.Params{"collection": "queue", "preload": 10000, "finish": false, "indexes": true},
		Setup:    queueSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			return fetchOp(db, p, (*queue.Queue).NextByPriority), nil
		},
		Teardown: dropTeardown,
	})
}
