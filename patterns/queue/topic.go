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

// Topic is publish/subscribe on one collection: every subscriber reads
// every message, in insertion order (unlike the job queue, where a job
// goes to one worker). A message is a document {_id, msg}. A subscriber
// follows the topic in one of two ways:
//
// Subscribe tails a capped collection (NewTopic creates one) with a
// tailable cursor. Storage is bounded by the collection's size and the
// oldest messages are overwritten; a subscriber's position is the last
// _id it saw, which it passes back to resume ({_id: {$gt: last}}), so
// _ids must increase in insertion order: Publish uses ObjectIds generated
// in one process, which do. With several publishing processes, clock skew
// between them can reorder ObjectIds and a resumed subscriber can then
// miss a message inserted right before it re-queried. Every subscriber
// reads every message: there is no filtering on the server.
//
// SubscribeChanges (and Changes) follow the topic's inserts by change
// stream. That works on any collection, capped or not (TopicOn), runs a
// $match on the server so a subscriber receives only the messages it
// wants, and resumes from an opaque token that survives server restarts
// as long as the oplog still holds that point (past it, resuming fails
// with ChangeStreamHistoryLost). Positions come from the commit order, so
// publishers in several processes are safe. A change stream can also see
// updates and deletes (Collection().Watch), which a tailable cursor
// cannot. The cost is the oplog: every write to every collection is
// logged, in the same storage batch, and kept up to the oplog's size.
//
// Use the tailable capped topic for a bounded buffer of recent messages
// whose readers keep up; use change streams when messages live in an
// ordinary collection, when subscribers filter, when positions must
// survive restarts exactly, or when publishers run in several processes.
type Topic struct {
	coll *mongo.Collection
}

// NewTopic opens topic name in db, creating it as a capped collection of
// sizeBytes bytes if it does not exist.
func NewTopic(ctx context.Context, db *mongo.Database, name string, sizeBytes int64) (*Topic, error) {
	err := db.CreateCollection(ctx, name, options.CreateCollection().SetCapped(true).SetSizeInBytes(sizeBytes))
	var ce mongo.CommandError
	if err != nil && !(errors.As(err, &ce) && ce.Code == 48) { // NamespaceExists
		return nil, fmt.Errorf("queue: create topic %s: %w", name, err)
	}
	return &Topic{coll: db.Collection(name)}, nil
}

// TopicOn returns a topic on coll as it is, capped or not. Publish and
// SubscribeChanges work on any collection; Subscribe needs a capped one
// (a tailable cursor on another collection is refused by the server).
func TopicOn(coll *mongo.Collection) *Topic { return &Topic{coll: coll} }

// Collection returns the topic's collection.
func (t *Topic) Collection() *mongo.Collection { return t.coll }

// Publish appends a message {_id, msg} and returns its _id.
func (t *Topic) Publish(ctx context.Context, msg any) (bson.ObjectID, error) {
	id := bson.NewObjectID()
	if _, err := t.coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "msg", Value: msg}}); err != nil {
		return id, fmt.Errorf("queue: publish to %s: %w", t.coll.Name(), err)
	}
	return id, nil
}

// Subscribe tails the topic's capped collection: it calls fn for every
// message after the one with _id after (the zero ObjectID means from the
// oldest kept) and then for each new message, until ctx ends or fn
// returns an error (which Subscribe returns). It resumes transparently
// when the tailable cursor dies (an empty topic, or the cursor's position
// was overwritten).
func (t *Topic) Subscribe(ctx context.Context, after bson.ObjectID, fn func(id bson.ObjectID, msg bson.RawValue) error) error {
	last := after
	for {
		filter := bson.D{}
		if !last.IsZero() {
			filter = bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: last}}}}
		}
		cur, err := t.coll.Find(ctx, filter, options.Find().
			SetCursorType(options.TailableAwait).SetMaxAwaitTime(200*time.Millisecond))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("queue: tail %s: %w", t.coll.Name(), err)
		}
		for {
			if cur.TryNext(ctx) {
				id, ok := cur.Current.Lookup("_id").ObjectIDOK()
				if !ok {
					continue
				}
				last = id
				if err := fn(id, cur.Current.Lookup("msg")); err != nil {
					cur.Close(context.Background())
					return err
				}
				continue
			}
			if cur.Err() != nil || cur.ID() == 0 || ctx.Err() != nil {
				break
			}
		}
		cur.Close(context.Background())
		if ctx.Err() != nil {
			return ctx.Err()
		}
		select { // the cursor died: re-query from the last _id seen
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
