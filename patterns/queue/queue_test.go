package queue

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode"
)

func openDB(t *testing.T) *mongo.Database {
	t.Helper()
	db, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Client().Database("work")
}

// fakeClock returns a queue clock advancing 1 ms per call, so createdOn
// values are distinct.
func fakeClock() func() time.Time {
	var mu sync.Mutex
	at := time.Date(2014, 1, 1, 10, 1, 22, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(time.Millisecond)
		return at
	}
}

func TestFIFOAndPriority(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := New(openDB(t).Collection("queue"))
	q.now = fakeClock()
	if err := q.EnsureIndexes(ctx, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	for i, p := range []int{1, 5, 3, 5} {
		if _, err := q.Publish(ctx, bson.D{{Key: "n", Value: i}}, p); err != nil {
			t.Fatal(err)
		}
	}
	order := func(j *Job, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if j.StartTime == nil || j.Attempts != 1 {
			t.Fatalf("claimed job %+v", j)
		}
		return int(j.Payload.Lookup("n").AsInt64())
	}
	if n := order(q.NextByPriority(ctx)); n != 1 {
		t.Fatalf("first by priority: job %d, want 1", n)
	}
	if n := order(q.NextFIFO(ctx)); n != 0 {
		t.Fatalf("first FIFO: job %d, want 0", n)
	}
	if n := order(q.NextByPriority(ctx)); n != 3 {
		t.Fatalf("second by priority: job %d, want 3", n)
	}
	j, err := q.NextFIFO(ctx)
	if n := order(j, err); n != 2 {
		t.Fatalf("second FIFO: job %d, want 2", n)
	}
	if _, err := q.NextFIFO(ctx); !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty queue: %v", err)
	}
	if err := q.Finish(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	got, err := q.Get(ctx, j.ID)
	if err != nil || got.EndTime == nil {
		t.Fatalf("finished job %+v, %v", got, err)
	}
	// The TTL index on endTime expires finished jobs after 24 hours.
	cur, err := q.Collection().Indexes().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var idx []bson.M
	if err := cur.All(ctx, &idx); err != nil {
		t.Fatal(err)
	}
	names := map[string]bson.M{}
	for _, ix := range idx {
		names[ix["name"].(string)] = ix
	}
	for _, n := range []string{"startTime_1_createdOn_1", "startTime_1_priority_-1_createdOn_1", "endTime_1"} {
		if names[n] == nil {
			t.Fatalf("index %s missing: %v", n, idx)
		}
	}
	if v := names["endTime_1"]["expireAfterSeconds"]; v != int32(86400) && v != int64(86400) {
		t.Fatalf("endTime_1 expireAfterSeconds = %#v", v)
	}
}

// TestWorkerDiesMidJob: worker A claims the job and dies in the handler
// (its context is cancelled and it never finishes). After the visibility
// timeout worker B claims it again and completes it, exactly once.
func TestWorkerDiesMidJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := New(openDB(t).Collection("jobs"))
	if err := q.EnsureIndexes(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	id, err := q.Publish(ctx, bson.D{{Key: "type", Value: "convertImage"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	const vis = 400 * time.Millisecond
	var (
		mu        sync.Mutex
		completed = map[string]int{}
	)
	started := make(chan struct{})
	ctxA, killA := context.WithCancel(ctx)
	a := &Worker{Queue: q, Name: "A", VisibilityTimeout: vis, PollInterval: 10 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			close(started)
			<-ctx.Done() // dies mid-job
			return ctx.Err()
		}}
	doneA := make(chan error, 1)
	go func() { doneA <- a.Run(ctxA) }()
	<-started
	killA()
	<-doneA
	killedAt := time.Now()

	ctxB, stopB := context.WithCancel(ctx)
	defer stopB()
	var firstB atomic.Int64
	b := &Worker{Queue: q, Name: "B", Concurrency: 4, VisibilityTimeout: vis, PollInterval: 10 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			firstB.CompareAndSwap(0, int64(time.Since(killedAt)))
			mu.Lock()
			completed[j.ID.Hex()]++
			mu.Unlock()
			return nil
		}}
	doneB := make(chan error, 1)
	go func() { doneB <- b.Run(ctxB) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := q.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.EndTime != nil {
			if j.Worker != "B" || j.Attempts != 2 {
				t.Fatalf("job finished by %q after %d attempts, want B after 2", j.Worker, j.Attempts)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job never completed: %+v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(3 * vis) // give a wrong implementation time to run it again
	stopB()
	<-doneB
	if got := completed[id.Hex()]; got != 1 {
		t.Fatalf("job completed %d times, want exactly once", got)
	}
	if d := time.Duration(firstB.Load()); d < vis-50*time.Millisecond {
		t.Fatalf("job re-claimed %v after the worker died, before the visibility timeout %v", d, vis)
	}
}

// TestPoisonJob: a job whose handler always fails is dead-lettered after
// MaxAttempts attempts, while good jobs complete.
func TestPoisonJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := New(openDB(t).Collection("jobs"))
	poison, err := q.Publish(ctx, bson.D{{Key: "poison", Value: true}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var good []bson.ObjectID
	for i := 0; i < 20; i++ {
		id, err := q.Publish(ctx, bson.D{{Key: "i", Value: i}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		good = append(good, id)
	}
	var calls sync.Map
	wctx, stop := context.WithCancel(ctx)
	w := &Worker{Queue: q, Concurrency: 3, MaxAttempts: 3, VisibilityTimeout: time.Minute, PollInterval: 5 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			n, _ := calls.LoadOrStore(j.ID, new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
			if _, ok := j.Payload.Lookup("poison").BooleanOK(); ok {
				return errors.New("cannot convert image")
			}
			return nil
		}}
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := q.Collection().CountDocuments(ctx, bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: "endTime", Value: bson.D{{Key: "$ne", Value: nil}}}},
			bson.D{{Key: "dead", Value: true}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		if n == 21 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of 21 jobs settled", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
	j, err := q.Get(ctx, poison)
	if err != nil {
		t.Fatal(err)
	}
	if !j.Dead || j.EndTime != nil || j.Attempts != 3 || j.LastError != "cannot convert image" {
		t.Fatalf("poison job %+v", j)
	}
	if n, _ := calls.Load(poison); n.(*atomic.Int32).Load() != 3 {
		t.Fatalf("poison handler ran %d times, want 3", n.(*atomic.Int32).Load())
	}
	for _, id := range good {
		if n, _ := calls.Load(id); n == nil || n.(*atomic.Int32).Load() != 1 {
			t.Fatalf("good job %s ran %v times", id.Hex(), n)
		}
	}
}

func TestTopic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	topic, err := NewTopic(ctx, db, "events", 1<<20)
	if err != nil {
		t.Fatalf("NewTopic: %v", err)
	}
	if _, err := NewTopic(ctx, db, "events", 1<<20); err != nil {
		t.Fatalf("reopening an existing topic: %v", err)
	}
	var ids []bson.ObjectID
	for i := 0; i < 5; i++ {
		id, err := topic.Publish(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// A subscriber resuming after message 1 sees 2, 3, 4, then live ones.
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got := make(chan int64, 100)
	errc := make(chan error, 1)
	go func() {
		errc <- topic.Subscribe(sctx, ids[1], func(id bson.ObjectID, msg bson.RawValue) error {
			got <- msg.AsInt64()
			if msg.AsInt64() == 9 {
				return errors.New("done")
			}
			return nil
		})
	}()
	for _, want := range []int64{2, 3, 4} {
		if v := <-got; v != want {
			t.Fatalf("got message %d, want %d", v, want)
		}
	}
	for i := 5; i < 10; i++ {
		time.Sleep(20 * time.Millisecond)
		if _, err := topic.Publish(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	for want := int64(5); want < 10; want++ {
		select {
		case v := <-got:
			if v != want {
				t.Fatalf("got live message %d, want %d", v, want)
			}
		case <-sctx.Done():
			t.Fatalf("live message %d never arrived", want)
		}
	}
	if err := <-errc; err == nil || err.Error() != "done" {
		t.Fatalf("Subscribe returned %v", err)
	}
	// Subscribing to an empty topic waits for the first message.
	empty, err := NewTopic(ctx, db, "empty", 4096)
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan int64, 1)
	go func() {
		_ = empty.Subscribe(sctx, bson.ObjectID{}, func(_ bson.ObjectID, m bson.RawValue) error {
			first <- m.AsInt64()
			return errors.New("stop")
		})
	}()
	time.Sleep(100 * time.Millisecond)
	if _, err := empty.Publish(ctx, 42); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-first:
		if v != 42 {
			t.Fatalf("first message %d", v)
		}
	case <-sctx.Done():
		t.Fatal("subscriber on an empty topic never saw the first message")
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond every 20 ms until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWorkerHungHandler: worker A's handler hangs, ignoring its context,
// as a stuck or dead process would, while A itself keeps running. After
// the visibility timeout worker B completes the job, exactly once. When
// A's handler finally returns it cannot finish the job it no longer owns,
// and a worker whose handler never returns still stops within its
// ShutdownTimeout.
func TestWorkerHungHandler(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := New(openDB(t).Collection("jobs"))
	if err := q.EnsureIndexes(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	id, err := q.Publish(ctx, bson.D{{Key: "type", Value: "convertImage"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	const vis = 400 * time.Millisecond
	release := make(chan struct{})
	forever := make(chan struct{})
	t.Cleanup(func() { close(forever) })
	started := make(chan time.Time, 1)
	var aCalls, bCalls atomic.Int32
	logA := &syncBuffer{}
	ctxA, stopA := context.WithCancel(ctx)
	defer stopA()
	a := &Worker{Queue: q, Name: "A", VisibilityTimeout: vis, PollInterval: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logA, nil)),
		Handler: func(ctx context.Context, j *Job) error {
			if aCalls.Add(1) == 1 {
				// The claim's time: the visibility timeout counts from it.
				started <- *j.StartTime
				<-release // hung: ignores ctx
			}
			return nil
		}}
	doneA := make(chan error, 1)
	go func() { doneA <- a.Run(ctxA) }()
	claimedAt := <-started

	ctxB, stopB := context.WithCancel(ctx)
	defer stopB()
	var firstB atomic.Int64
	b := &Worker{Queue: q, Name: "B", Concurrency: 2, VisibilityTimeout: vis, PollInterval: 10 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			firstB.CompareAndSwap(0, int64(time.Since(claimedAt)))
			bCalls.Add(1)
			return nil
		}}
	doneB := make(chan error, 1)
	go func() { doneB <- b.Run(ctxB) }()
	var finished *Job
	waitFor(t, "B to complete the job", func() bool {
		j, err := q.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		finished = j
		return j.EndTime != nil
	})
	if finished.Worker != "B" || finished.Attempts != 2 {
		t.Fatalf("job finished by %q after %d attempts, want B after 2", finished.Worker, finished.Attempts)
	}
	if d := time.Duration(firstB.Load()); d < vis {
		t.Fatalf("B claimed the job %v after A did, before the visibility timeout %v", d, vis)
	}

	// A's handler returns now: its finish must be refused (claim lost).
	close(release)
	waitFor(t, "A to report its lost claim", func() bool {
		return strings.Contains(logA.String(), "requeued while its handler ran")
	})
	time.Sleep(3 * vis) // give a wrong implementation time to run the job again
	j, err := q.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Worker != "B" || j.Attempts != 2 || !j.EndTime.Equal(*finished.EndTime) || j.Claim != finished.Claim {
		t.Fatalf("stale worker A changed the finished job: before %+v, after %+v", finished, j)
	}
	if a, b := aCalls.Load(), bCalls.Load(); a != 1 || b != 1 {
		t.Fatalf("handler calls: A %d, B %d; want exactly one each", a, b)
	}
	stopA()
	stopB()
	for _, d := range []chan error{doneA, doneB} {
		select {
		case <-d:
		case <-time.After(5 * time.Second):
			t.Fatal("worker did not stop")
		}
	}

	// A handler that never returns: Run still stops after ShutdownTimeout.
	if _, err := q.Publish(ctx, bson.D{{Key: "type", Value: "hang"}}, 1); err != nil {
		t.Fatal(err)
	}
	ctxC, stopC := context.WithCancel(ctx)
	entered := make(chan struct{}, 1)
	c := &Worker{Queue: q, Name: "C", VisibilityTimeout: time.Minute, PollInterval: 10 * time.Millisecond,
		ShutdownTimeout: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Handler: func(ctx context.Context, j *Job) error {
			entered <- struct{}{}
			<-forever
			return nil
		}}
	doneC := make(chan error, 1)
	go func() { doneC <- c.Run(ctxC) }()
	<-entered
	stoppedAt := time.Now()
	stopC()
	select {
	case err := <-doneC:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run returned %v, want context.Canceled", err)
		}
		if d := time.Since(stoppedAt); d < 200*time.Millisecond {
			t.Fatalf("Run returned after %v, before its ShutdownTimeout", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run blocked on a handler that never returns")
	}
}

// TestHungJobDeadLetters: a job whose handler always hangs is requeued
// after each visibility timeout and goes to the dead-letter state once it
// has used MaxAttempts claims.
func TestHungJobDeadLetters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	q := New(openDB(t).Collection("jobs"))
	forever := make(chan struct{})
	t.Cleanup(func() { close(forever) })
	id, err := q.Publish(ctx, bson.D{{Key: "type", Value: "hang"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	const vis = 200 * time.Millisecond
	var calls atomic.Int32
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	w := &Worker{Queue: q, Concurrency: 4, MaxAttempts: 3, VisibilityTimeout: vis, PollInterval: 10 * time.Millisecond,
		ShutdownTimeout: 100 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Handler: func(ctx context.Context, j *Job) error {
			calls.Add(1)
			<-forever
			return nil
		}}
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	start := time.Now()
	var j *Job
	waitFor(t, "the hung job to be dead-lettered", func() bool {
		j, err = q.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return j.Dead
	})
	if d := time.Since(start); d < 3*vis {
		t.Fatalf("dead-lettered after %v, before three visibility timeouts (%v)", d, 3*vis)
	}
	time.Sleep(3 * vis) // a dead job is never claimed again
	j, err = q.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !j.Dead || j.EndTime != nil || j.Attempts != 3 || j.LastError != "visibility timeout" {
		t.Fatalf("dead job %+v", j)
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("hung handler ran %d times, want 3", n)
	}
	stop()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run blocked on hung handlers")
	}
}
