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

// ErrInvalidated reports that a change-stream subscription ended because
// its collection was dropped or renamed (the stream's invalidate event).
var ErrInvalidated = errors.New("queue: change stream invalidated (the collection was dropped or renamed)")

// ChangeOptions configure a change-stream subscription: Topic.Changes,
// Topic.SubscribeChanges and Queue.WatchPublished.
type ChangeOptions struct {
	// ResumeAfter is a position saved from Change.Token or Changes.Token:
	// the subscription continues right after it, including what was
	// inserted while nobody was subscribed and across server restarts, as
	// long as the oplog still holds it (otherwise opening fails with
	// ChangeStreamHistoryLost, code 286). Nil starts with what is inserted
	// after the stream opens.
	ResumeAfter bson.Raw
	// Match is an extra $match the server applies to the insert events
	// before sending them. Its paths are the event's: a topic message's
	// field is "fullDocument.msg.FIELD", a job's payload field
	// "fullDocument.payload.FIELD".
	Match bson.D
	// MaxAwait is how long the server holds an empty getMore open waiting
	// for an insert (0: 1 s). It bounds how stale Changes.Token is while
	// idle, not how fast an insert is delivered: a waiting getMore returns
	// as soon as one commits.
	MaxAwait time.Duration
}

// Change is one inserted document delivered by a change stream.
type Change struct {
	// ID is the document's _id.
	ID bson.RawValue
	// Msg is a topic message's msg field, or a job's payload.
	Msg bson.RawValue
	// Doc is the whole inserted document (the event's fullDocument).
	Doc bson.Raw
	// Token is the event's resume token: ChangeOptions.ResumeAfter set to
	// it continues with the next insert.
	Token bson.Raw
	// ClusterTime is the insert's commit time in the oplog.
	ClusterTime bson.Timestamp
	// WallTime is the server's wall clock when the insert was logged
	// (the event's wallTime, millisecond precision), zero if absent.
	WallTime time.Time
}

// Changes is an open change-stream subscription to the inserts of one
// collection. Its methods must not be called concurrently.
type Changes struct {
	cs    *mongo.ChangeStream
	field string // the field Change.Msg reads
	name  string
}

// watchInserts opens a change stream of coll's inserts.
func watchInserts(ctx context.Context, coll *mongo.Collection, field string, o ChangeOptions) (*Changes, error) {
	var match bson.D
	if len(o.Match) == 0 {
		match = bson.D{{Key: "operationType", Value: "insert"}}
	} else {
		match = bson.D{{Key: "$and", Value: bson.A{bson.D{{Key: "operationType", Value: "insert"}}, o.Match}}}
	}
	wait := o.MaxAwait
	if wait <= 0 {
		wait = time.Second
	}
	opts := options.ChangeStream().SetMaxAwaitTime(wait)
	if len(o.ResumeAfter) > 0 {
		opts.SetResumeAfter(o.ResumeAfter)
	}
	cs, err := coll.Watch(ctx, mongo.Pipeline{{{Key: "$match", Value: match}}}, opts)
	if err != nil {
		return nil, fmt.Errorf("queue: watch %s: %w", coll.Name(), err)
	}
	return &Changes{cs: cs, field: field, name: coll.Name()}, nil
}

// Next waits for the next insert and returns it. It returns ctx's error
// when ctx ends, ErrInvalidated when the collection was dropped or
// renamed, and the stream's error otherwise (the driver has already
// resumed once after a network error by then).
func (c *Changes) Next(ctx context.Context) (*Change, error) {
	for c.cs.Next(ctx) {
		ev := c.cs.Current
		if op, _ := ev.Lookup("operationType").StringValueOK(); op == "invalidate" {
			return nil, ErrInvalidated
		}
		doc, ok := ev.Lookup("fullDocument").DocumentOK()
		if !ok {
			continue
		}
		ch := &Change{
			ID:    cloneValue(doc.Lookup("_id")),
			Doc:   append(bson.Raw(nil), doc...),
			Token: append(bson.Raw(nil), ev.Lookup("_id").Value...),
		}
		ch.Msg = ch.Doc.Lookup(c.field)
		if t, i, ok := ev.Lookup("clusterTime").TimestampOK(); ok {
			ch.ClusterTime = bson.Timestamp{T: t, I: i}
		}
		if ms, ok := ev.Lookup("wallTime").DateTimeOK(); ok {
			ch.WallTime = time.UnixMilli(ms)
		}
		return ch, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.cs.Err(); err != nil {
		return nil, fmt.Errorf("queue: change stream on %s: %w", c.name, err)
	}
	return nil, ErrInvalidated // the server closed the stream: invalidated
}

// Token returns the subscription's position: after the last insert Next
// returned, or later when the server has reported progress past events
// the stream filtered out (postBatchResumeToken). Saving it while idle
// keeps a resumed subscription from rescanning them, and from falling out
// of the oplog when matching inserts are rare. Nil before the first
// server reply.
func (c *Changes) Token() bson.Raw {
	if t := c.cs.ResumeToken(); t != nil {
		return append(bson.Raw(nil), t...)
	}
	return nil
}

// Close closes the stream (killCursors).
func (c *Changes) Close(ctx context.Context) error { return c.cs.Close(ctx) }

// cloneValue copies v's bytes out of a driver buffer that is reused.
func cloneValue(v bson.RawValue) bson.RawValue {
	v.Value = append([]byte(nil), v.Value...)
	return v
}

// subscribeChanges runs fn for every insert from open until ctx ends, fn
// fails or the stream does. After a network error that the driver could
// not resume from, it reopens the stream after the last insert delivered.
func subscribeChanges(ctx context.Context, open func(ChangeOptions) (*Changes, error), o ChangeOptions, fn func(*Change) error) error {
	for {
		c, err := open(o)
		if err != nil {
			return err
		}
		for {
			ch, err := c.Next(ctx)
			if err == nil {
				o.ResumeAfter = ch.Token
				if err := fn(ch); err != nil {
					c.Close(context.Background())
					return err
				}
				continue
			}
			if tok := c.Token(); tok != nil {
				o.ResumeAfter = tok // covers every insert delivered, and no later one
			}
			c.Close(context.Background())
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !mongo.IsNetworkError(err) {
				return err
			}
			break
		}
		select { // the connection went away: reopen from the last insert seen
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Changes opens a change stream of the messages published to the topic,
// from o.ResumeAfter or from now. The stream is open when Changes
// returns: every message published afterwards is delivered.
func (t *Topic) Changes(ctx context.Context, o ChangeOptions) (*Changes, error) {
	return watchInserts(ctx, t.coll, "msg", o)
}

// SubscribeChanges calls fn for every message published to the topic
// after o.ResumeAfter (nil: after the stream opens), in commit order, by
// change stream, until ctx ends or fn returns an error (which it
// returns). A subscriber that saves each Change.Token after handling it
// and passes it back as ResumeAfter after a restart gets every message
// exactly once, as long as the oplog still holds its position.
func (t *Topic) SubscribeChanges(ctx context.Context, o ChangeOptions, fn func(*Change) error) error {
	return subscribeChanges(ctx, func(o ChangeOptions) (*Changes, error) { return t.Changes(ctx, o) }, o, fn)
}

// WatchPublished opens a change stream of the jobs published to the
// queue (Change.Msg is the payload), from o.ResumeAfter or from now.
// Workers can wait on it instead of polling an empty queue; the job must
// still be claimed (NextFIFO, NextByPriority) to be run by one worker.
func (q *Queue) WatchPublished(ctx context.Context, o ChangeOptions) (*Changes, error) {
	return watchInserts(ctx, q.coll, "payload", o)
}
