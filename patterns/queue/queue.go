// Package queue is a work queue with FIFO and priority dequeue, the
// pattern of seed 004, plus a Worker with a visibility timeout and a
// dead-letter state, and a publish/subscribe Topic followed either by a
// tailable cursor on a capped collection or by change stream.
//
// A job is the seed's document, extended with bookkeeping fields:
//
//	{_id, startTime: null|date, endTime: null|date, createdOn: date,
//	 priority: n, payload: {...}, attempts: n, claim: ObjectId, worker: "...",
//	 dead: true (dead-letter only), lastError: "..."}
//
// NextFIFO and NextByPriority are the seed's findAndModify on
// {startTime: null}, sorted by {createdOn: 1} or {priority: -1,
// createdOn: 1}, setting startTime; EnsureIndexes creates the seed's
// {startTime: 1, createdOn: 1} and {startTime: 1, priority: -1,
// createdOn: 1} so both are index scans, and the TTL index on endTime
// that removes finished jobs after a retention period (24 h in the seed).
//
// Every claim also records a fresh claim id. A job whose worker died stays
// claimed (startTime set, endTime null); Requeue, run periodically by
// Worker, puts jobs claimed longer than the visibility timeout back into
// the queue (startTime: null), or into the dead-letter state (dead: true)
// once they have used MaxAttempts claims. Finishing through a claim
// (Claimed.Finish) is conditional on the claim id, so a job is marked done
// at most once even when a slow worker and its replacement both run it.
// Handlers therefore run at least once; their effects should be idempotent.
//
// Subscribers: a Topic delivers every message to every subscriber.
// Topic.Subscribe tails a capped collection: storage is bounded and the
// oldest messages are overwritten, a subscriber's position is the last
// _id it saw, and the server cannot filter. Topic.SubscribeChanges and
// Topic.Changes use a change stream instead: any collection (not only
// capped), a $match run on the server, resume tokens that survive server
// restarts while the oplog still holds them, and updates and deletes are
// visible too (Collection().Watch); the cost is the oplog, which logs
// every write. Queue.WatchPublished is the same change stream on a job
// queue's inserts. The Topic type's doc says when to use which.
//
// Sharding: as the seed says, a queue should not be sharded on startTime
// (the dequeue changes it). Scale out by giving each shard its own queue
// collection (for example one collection per job type or per hash of the
// producer) and pinning each collection to a shard; a queue collection can
// be sharded on {_id: "hashed"} only if consumers can accept dequeues that
// scatter to every shard.
package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// ErrEmpty reports that no job is waiting.
var ErrEmpty = errors.New("queue: no job waiting")

// ErrClaimLost reports that a job was requeued (or finished) by someone
// else since it was claimed.
var ErrClaimLost = errors.New("queue: job claim lost")

// Job is a job document.
type Job struct {
	ID        bson.ObjectID `bson:"_id"`
	StartTime *time.Time    `bson:"startTime"`
	EndTime   *time.Time    `bson:"endTime"`
	CreatedOn time.Time     `bson:"createdOn"`
	Priority  int           `bson:"priority"`
	Payload   bson.Raw      `bson:"payload"`
	Attempts  int           `bson:"attempts"`
	Claim     bson.ObjectID `bson:"claim,omitempty"`
	Worker    string        `bson:"worker,omitempty"`
	Dead      bool          `bson:"dead,omitempty"`
	LastError string        `bson:"lastError,omitempty"`
}

// Queue is a job queue in one collection.
type Queue struct {
	coll *mongo.Collection
	now  func() time.Time
}

// New returns a Queue on coll.
func New(coll *mongo.Collection) *Queue {
	return &Queue{coll: coll, now: func() time.Time { return time.Now().UTC() }}
}

// Collection returns the queue's collection.
func (q *Queue) Collection() *mongo.Collection { return q.coll }

var (
	fifoOrder     = bson.D{{Key: "createdOn", Value: 1}}
	priorityOrder = bson.D{{Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}
)

// Index keys of the seed's FIFO and priority indexes.
var (
	FIFOIndex     = bson.D{{Key: "startTime", Value: 1}, {Key: "createdOn", Value: 1}}
	PriorityIndex = bson.D{{Key: "startTime", Value: 1}, {Key: "priority", Value: -1}, {Key: "createdOn", Value: 1}}
)

// EnsureIndexes creates the FIFO and priority indexes and the TTL index
// {endTime: 1} that removes finished jobs retention after they end
// (the seed uses 24 hours).
func (q *Queue) EnsureIndexes(ctx context.Context, retention time.Duration) error {
	_, err := q.coll.Indexes().CreateMany(ctx, []mongo.IndexModel{
		{Keys: FIFOIndex},
		{Keys: PriorityIndex},
		{Keys: bson.D{{Key: "endTime", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(int32(retention / time.Second))},
	})
	if err != nil {
		return fmt.Errorf("queue: create indexes: %w", err)
	}
	return nil
}

// Publish inserts a job: the seed's insert with startTime and endTime null.
func (q *Queue) Publish(ctx context.Context, payload any, priority int) (bson.ObjectID, error) {
	id := bson.NewObjectID()
	_, err := q.coll.InsertOne(ctx, bson.D{
		{Key: "_id", Value: id},
		{Key: "startTime", Value: nil},
		{Key: "endTime", Value: nil},
		{Key: "createdOn", Value: q.now()},
		{Key: "priority", Value: priority},
		{Key: "payload", Value: payload},
		{Key: "attempts", Value: 0},
	})
	if err != nil {
		return id, fmt.Errorf("queue: publish: %w", err)
	}
	return id, nil
}

// NextFIFO claims the oldest waiting job (sort {createdOn: 1}).
func (q *Queue) NextFIFO(ctx context.Context) (*Job, error) {
	return q.next(ctx, fifoOrder, "")
}

// NextByPriority claims the waiting job with the highest priority, oldest
// first among equals (sort {priority: -1, createdOn: 1}).
func (q *Queue) NextByPriority(ctx context.Context) (*Job, error) {
	return q.next(ctx, priorityOrder, "")
}

func (q *Queue) next(ctx context.Context, sort bson.D, worker string) (*Job, error) {
	set := bson.D{{Key: "startTime", Value: q.now()}, {Key: "claim", Value: bson.NewObjectID()}}
	if worker != "" {
		set = append(set, bson.E{Key: "worker", Value: worker})
	}
	var j Job
	err := q.coll.FindOneAndUpdate(ctx, bson.D{{Key: "startTime", Value: nil}},
		bson.D{{Key: "$set", Value: set}, {Key: "$inc", Value: bson.D{{Key: "attempts", Value: 1}}}},
		options.FindOneAndUpdate().SetSort(sort).SetReturnDocument(options.After)).Decode(&j)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, ErrEmpty
	}
	if err != nil {
		return nil, fmt.Errorf("queue: claim next job: %w", err)
	}
	return &j, nil
}

// Finish marks job id done: the seed's update {$set: {endTime: now}}. It
// does not check the claim; Worker finishes through FinishClaim, so a
// worker whose job was requeued under it cannot complete it.
func (q *Queue) Finish(ctx context.Context, id bson.ObjectID) error {
	r, err := q.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "endTime", Value: q.now()}}}})
	if err != nil {
		return fmt.Errorf("queue: finish %s: %w", id.Hex(), err)
	}
	if r.MatchedCount == 0 {
		return fmt.Errorf("queue: finish %s: %w", id.Hex(), mongo.ErrNoDocuments)
	}
	return nil
}

// FinishClaim marks j done if it is still held by j's claim, and returns
// ErrClaimLost otherwise.
func (q *Queue) FinishClaim(ctx context.Context, j *Job) error {
	r, err := q.coll.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: j.ID}, {Key: "claim", Value: j.Claim}, {Key: "endTime", Value: nil}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "endTime", Value: q.now()}}}})
	if err != nil {
		return fmt.Errorf("queue: finish %s: %w", j.ID.Hex(), err)
	}
	if r.MatchedCount == 0 {
		return ErrClaimLost
	}
	return nil
}

// Release gives a claimed job back after a failed attempt: it waits again
// (startTime: null), or goes to the dead-letter state when it has used
// maxAttempts claims (maxAttempts <= 0 means no limit).
func (q *Queue) Release(ctx context.Context, j *Job, cause error, maxAttempts int) error {
	msg := ""
	if cause != nil {
		msg = cause.Error()
	}
	var update bson.D
	if maxAttempts > 0 && j.Attempts >= maxAttempts {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: "dead", Value: true}, {Key: "lastError", Value: msg}}}}
	} else {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: "startTime", Value: nil}, {Key: "lastError", Value: msg}}}, {Key: "$unset", Value: bson.D{{Key: "claim", Value: ""}}}}
	}
	r, err := q.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: j.ID}, {Key: "claim", Value: j.Claim}, {Key: "endTime", Value: nil}}, update)
	if err != nil {
		return fmt.Errorf("queue: release %s: %w", j.ID.Hex(), err)
	}
	if r.MatchedCount == 0 {
		return ErrClaimLost
	}
	return nil
}

// Requeue handles jobs claimed more than timeout ago and not finished
// (their worker died or stalled): jobs with maxAttempts claims go to the
// dead-letter state, the others wait again. It returns how many of each.
func (q *Queue) Requeue(ctx context.Context, timeout time.Duration, maxAttempts int) (requeued, dead int64, err error) {
	stale := bson.D{
		{Key: "startTime", Value: bson.D{{Key: "$lt", Value: q.now().Add(-timeout)}}},
		{Key: "endTime", Value: nil},
		{Key: "dead", Value: bson.D{{Key: "$exists", Value: false}}},
	}
	if maxAttempts > 0 {
		f := append(append(bson.D{}, stale...), bson.E{Key: "attempts", Value: bson.D{{Key: "$gte", Value: maxAttempts}}})
		r, err := q.coll.UpdateMany(ctx, f, bson.D{{Key: "$set", Value: bson.D{{Key: "dead", Value: true}, {Key: "lastError", Value: "visibility timeout"}}}})
		if err != nil {
			return 0, 0, fmt.Errorf("queue: dead-letter stale jobs: %w", err)
		}
		dead = r.ModifiedCount
	}
	r, err := q.coll.UpdateMany(ctx, stale, bson.D{
		{Key: "$set", Value: bson.D{{Key: "startTime", Value: nil}, {Key: "lastError", Value: "visibility timeout"}}},
		{Key: "$unset", Value: bson.D{{Key: "claim", Value: ""}}},
	})
	if err != nil {
		return 0, dead, fmt.Errorf("queue: requeue stale jobs: %w", err)
	}
	return r.ModifiedCount, dead, nil
}

// Get returns job id.
func (q *Queue) Get(ctx context.Context, id bson.ObjectID) (*Job, error) {
	var j Job
	if err := q.coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&j); err != nil {
		return nil, fmt.Errorf("queue: get %s: %w", id.Hex(), err)
	}
	return &j, nil
}
