package scenarios

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/patterns/queue"
)

// published records the jobs publish_to_queues had acknowledged on one
// queue since its setup: how many, and when each was acknowledged, so
// that a subscriber in the same run can measure its latency from the
// acknowledgement.
type published struct {
	n    atomic.Int64
	acks sync.Map // bson.ObjectID -> time.Time
}

func (p *published) acked(id bson.ObjectID, at time.Time) {
	p.acks.Store(id, at)
	p.n.Add(1)
}

// pubs holds each queue's published record, keyed like claims.
var pubs sync.Map // string -> *published

func publishedOf(db *mongo.Database, p sim.Params) *published {
	v, _ := pubs.LoadOrStore(claimKey(db, p), new(published))
	return v.(*published)
}

// watchLoop follows sub, delivering each job with the publisher's sentAt
// stamp and acknowledgement time.
func watchLoop(sub *queue.Changes, pub *published) sim.SubscribeLoop {
	return func(ctx context.Context, deliver func(sim.Delivery)) error {
		defer sub.Close(context.Background())
		for {
			ch, err := sub.Next(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			d := sim.Delivery{At: time.Now(), Committed: ch.WallTime}
			if doc, ok := ch.Msg.DocumentOK(); ok {
				if ns, ok := doc.Lookup("sentAt").Int64OK(); ok {
					d.Sent = time.Unix(0, ns)
				}
			}
			if id, ok := ch.ID.ObjectIDOK(); ok {
				d.Key = id
				if at, ok := pub.acks.Load(id); ok {
					d.Acked = at.(time.Time)
				}
			}
			deliver(d)
		}
	}
}

func init() {
	sim.Register(&sim.Scenario{
		Name: "subscribe_to_queue_changes",
		Seed: "004",
		Description: "Change-stream subscribers on the queue, run beside publish_to_queues (seed004-queue-changestream). " +
			"Each follows the queue's inserts with queue.WatchPublished (watch() with a server-side $match on insert events), opened before the load starts. " +
			"Every delivery counts as an operation: events per second, latency from the publisher's sentAt stamp (taken just before its insert) to arrival, " +
			"and (service time) from the publisher's acknowledgement to arrival. Users are subscribers, each on its own client. " +
			"After the load the run waits up to `drain` ms for every acknowledged publish to reach every subscriber; missing ones count as errors. " +
			"`maxAwait` is the awaitData getMore wait in ms.",
		Users:    1,
		Defaults: sim.Params{"collection": "queue", "drain": 5000, "maxAwait": 1000},
		Subscribe: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.SubscribeLoop, error) {
			q := queue.New(coll(db, p))
			sub, err := q.WatchPublished(ctx, queue.ChangeOptions{MaxAwait: time.Duration(p.Int("maxAwait", 1000)) * time.Millisecond})
			if err != nil {
				return nil, err
			}
			return watchLoop(sub, publishedOf(db, p)), nil
		},
		Published: func(db *mongo.Database, p sim.Params) int64 { return publishedOf(db, p).n.Load() },
	})
}
