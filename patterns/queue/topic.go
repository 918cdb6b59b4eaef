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

// Topic is publish/subscribe on a capped collection: messages are kept in
// insertion order in a fixed amount of space (the oldest are overwritten)
// and every subscriber reads all of them with a tailable cursor. Unlike the
// job queue, a message is delivered to every subscriber, not to one.
//
// A subscriber resumes after the last _id it saw ({_id: {$gt: last}}), so
// _ids must increase in insertion order: Publish uses ObjectIds generated
// in one process, which do. With several publishing processes, clock skew
// between them can reorder ObjectIds and a resumed subscriber can then
// miss a message inserted right before it re-queried.
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

// Collection returns the topic's capped collection.
func (t *Topic) Collection() *mongo.Collection { return t.coll }

// Publish appends a message {_id, msg} and returns its _id.
func (t *Topic) Publish(ctx context.Context, msg any) (bson.ObjectID, error) {
	id := bson.NewObjectID()
	if _, err := t.coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "msg", Value: msg}}); err != nil {
		return id, fmt.Errorf("queue: publish to %s: %w", t.coll.Name(), err)
	}
	return id, nil
}

// Subscribe calls fn for every message after the one with _id after (the
// zero ObjectID means from the oldest kept) and then for each new message,
// until ctx ends or fn returns an error (which Subscribe returns). It
// resumes transparently when the tailable cursor dies (an empty topic, or
// the cursor's position was overwritten).
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
