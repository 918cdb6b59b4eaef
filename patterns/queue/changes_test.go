package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
)

// nextChange reads the subscription's next insert, failing after 5 s.
func nextChange(t *testing.T, c *Changes) *Change {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ch, err := c.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return ch
}

// TestTopicChanges: a change-stream subscriber opened before publishing
// gets every message in commit order, with its _id, msg, resume token and
// a cluster time that increases; updates and deletes of messages are not
// messages.
func TestTopicChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	topic := TopicOn(db.Collection("events"))
	if _, err := topic.Publish(ctx, -1); err != nil { // before the stream: not delivered
		t.Fatal(err)
	}
	sub, err := topic.Changes(ctx, ChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close(ctx)
	var ids []bson.ObjectID
	for i := range 3 {
		id, err := topic.Publish(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := topic.Collection().UpdateOne(ctx, bson.D{{Key: "_id", Value: ids[0]}}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: true}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := topic.Collection().DeleteOne(ctx, bson.D{{Key: "_id", Value: ids[1]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := TopicOn(db.Collection("other")).Publish(ctx, 0); err != nil { // another collection
		t.Fatal(err)
	}
	id3, err := topic.Publish(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, id3)
	var last bson.Timestamp
	for i, want := range ids {
		ch := nextChange(t, sub)
		if ch.ID.ObjectID() != want || ch.Msg.AsInt64() != int64(i) {
			t.Fatalf("change %d: _id %v msg %v, want %v and %d", i, ch.ID, ch.Msg, want, i)
		}
		if len(ch.Token) == 0 || ch.Doc.Lookup("_id").ObjectID() != want {
			t.Fatalf("change %d: token %v doc %v", i, ch.Token, ch.Doc)
		}
		if ch.WallTime.IsZero() || time.Since(ch.WallTime) > time.Minute {
			t.Fatalf("change %d: wallTime %v, want the insert's", i, ch.WallTime)
		}
		if !ch.ClusterTime.After(last) {
			t.Fatalf("change %d: cluster time %v not after %v", i, ch.ClusterTime, last)
		}
		last = ch.ClusterTime
	}
	if tok := sub.Token(); len(tok) == 0 {
		t.Fatal("Token() is empty after deliveries")
	}
}

// TestTopicChangesMatch: Match runs on the server, so a subscriber gets
// only the messages it asks for, in order.
func TestTopicChangesMatch(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := openDB(t)
	topic := TopicOn(db.Collection("alerts"))
	var got []int64
	opened := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		sub, err := topic.Changes(ctx, ChangeOptions{Match: bson.D{{Key: "fullDocument.msg.kind", Value: "alert"}}})
		close(opened)
		if err != nil {
			errc <- err
			return
		}
		defer sub.Close(context.Background())
		for len(got) < 3 {
			ch, err := sub.Next(ctx)
			if err != nil {
				errc <- err
				return
			}
			got = append(got, ch.Msg.Document().Lookup("n").AsInt64())
		}
		errc <- nil
	}()
	<-opened
	for i := range 9 {
		kind := "info"
		if i%3 == 2 {
			kind = "alert"
		}
		if _, err := topic.Publish(ctx, bson.D{{Key: "kind", Value: kind}, {Key: "n", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != 2 || got[1] != 5 || got[2] != 8 {
		t.Fatalf("alerts %v, want [2 5 8]", got)
	}
}

// TestTopicOnUncapped: on an ordinary collection, tailing is refused by
// the server (BadValue, as mongod: a tailable cursor needs a capped
// collection) while SubscribeChanges follows it.
func TestTopicOnUncapped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := openDB(t)
	topic := TopicOn(db.Collection("orders"))
	if _, err := topic.Publish(ctx, "first"); err != nil {
		t.Fatal(err)
	}
	err := topic.Subscribe(ctx, bson.ObjectID{}, func(bson.ObjectID, bson.RawValue) error { return nil })
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 2 {
		t.Fatalf("Subscribe on an uncapped collection: %v, want BadValue (2)", err)
	}
	// SubscribeChanges from the first message's token gets what follows.
	sub, err := topic.Changes(ctx, ChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := topic.Publish(ctx, "second"); err != nil {
		t.Fatal(err)
	}
	tok := nextChange(t, sub).Token
	sub.Close(ctx)
	for _, m := range []string{"third", "fourth"} {
		if _, err := topic.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	stop := errors.New("stop")
	err = topic.SubscribeChanges(ctx, ChangeOptions{ResumeAfter: tok}, func(ch *Change) error {
		got = append(got, ch.Msg.StringValue())
		if len(got) == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || len(got) != 2 || got[0] != "third" || got[1] != "fourth" {
		t.Fatalf("SubscribeChanges: %v %v, want [third fourth] and the handler's error", got, err)
	}
}

// TestTopicChangesResumeAfterRestart: a subscriber saves the token of the
// last message it handled; the server is closed and reopened on the same
// data directory; resuming from the token delivers the next message,
// those published while nobody was subscribed (before and after the
// restart), then live ones, each once and in order.
func TestTopicChangesResumeAfterRestart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	ldb, err := lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	topic, err := NewTopic(ctx, ldb.Client().Database("work"), "events", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := topic.Changes(ctx, ChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"a", "b"} {
		if _, err := topic.Publish(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	first := nextChange(t, sub)
	if first.Msg.StringValue() != "a" {
		t.Fatalf("first message %v", first.Msg)
	}
	saved := first.Token // the subscriber handled "a" and stops
	sub.Close(ctx)
	if _, err := topic.Publish(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := ldb.Close(); err != nil {
		t.Fatal(err)
	}
	ldb, err = lode.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ldb.Close()
	topic, err = NewTopic(ctx, ldb.Client().Database("work"), "events", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := topic.Publish(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	var got []string
	errc := make(chan error, 1)
	go func() {
		errc <- topic.SubscribeChanges(ctx, ChangeOptions{ResumeAfter: saved}, func(ch *Change) error {
			got = append(got, ch.Msg.StringValue())
			if len(got) == 4 {
				return errors.New("done")
			}
			return nil
		})
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := topic.Publish(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil || err.Error() != "done" {
		t.Fatalf("SubscribeChanges: %v (got %v)", err, got)
	}
	if want := []string{"b", "c", "d", "e"}; len(got) != 4 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("resumed after a restart: %v, want %v", got, want)
	}
}

// TestChangesIdleToken: while only filtered-out inserts commit, Token
// moves past them (postBatchResumeToken), and resuming from it skips
// them and delivers the next matching message.
func TestChangesIdleToken(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := openDB(t)
	topic := TopicOn(db.Collection("t"))
	o := ChangeOptions{Match: bson.D{{Key: "fullDocument.msg", Value: "wanted"}}, MaxAwait: 50 * time.Millisecond}
	sub, err := topic.Changes(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	start := sub.Token()
	for range 5 {
		if _, err := topic.Publish(ctx, "other"); err != nil {
			t.Fatal(err)
		}
	}
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	if ch, err := sub.Next(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next with only filtered inserts: %v %v, want the deadline", ch, err)
	}
	stop()
	idle := sub.Token()
	sub.Close(ctx)
	if len(idle) == 0 || bson.Raw(idle).String() == bson.Raw(start).String() {
		t.Fatalf("Token did not move past filtered inserts: %v (was %v)", idle, start)
	}
	if _, err := topic.Publish(ctx, "wanted"); err != nil {
		t.Fatal(err)
	}
	o.ResumeAfter = idle
	sub, err = topic.Changes(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close(ctx)
	if ch := nextChange(t, sub); ch.Msg.StringValue() != "wanted" {
		t.Fatalf("after resuming from the idle token: %v", ch.Msg)
	}
}

// TestChangesInvalidated: dropping the topic's collection ends the
// subscription with ErrInvalidated (the stream's drop and invalidate
// events).
func TestChangesInvalidated(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db := openDB(t)
	topic := TopicOn(db.Collection("gone"))
	if _, err := topic.Publish(ctx, 1); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	sub, err := topic.Changes(ctx, ChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer sub.Close(context.Background())
		_, err := sub.Next(ctx)
		errc <- err
	}()
	if err := topic.Collection().Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, ErrInvalidated) {
		t.Fatalf("Next after drop: %v, want ErrInvalidated", err)
	}
}

// TestWatchPublished: the queue's change stream delivers each published
// job with its payload; claiming and finishing it (updates) are not
// deliveries.
func TestWatchPublished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	q := New(db.Collection("jobs"))
	sub, err := q.WatchPublished(ctx, ChangeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close(ctx)
	id, err := q.Publish(ctx, bson.D{{Key: "task", Value: "resize"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	j, err := q.NextFIFO(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Finish(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	id2, err := q.Publish(ctx, bson.D{{Key: "task", Value: "upload"}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		id   bson.ObjectID
		task string
	}{{id, "resize"}, {id2, "upload"}} {
		ch := nextChange(t, sub)
		if ch.ID.ObjectID() != want.id || ch.Msg.Document().Lookup("task").StringValue() != want.task {
			t.Fatalf("change %v %v, want job %v %s", ch.ID, ch.Msg, want.id, want.task)
		}
		if ch.Doc.Lookup("startTime").Type != bson.TypeNull {
			t.Fatalf("published job %v: startTime not null", ch.Doc)
		}
	}
}
