package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Handler processes one job. Returning an error gives the job back for
// another attempt (or to the dead-letter state after MaxAttempts).
type Handler func(ctx context.Context, j *Job) error

// Worker claims jobs from a Queue and runs a Handler on them with bounded
// concurrency.
type Worker struct {
	Queue   *Queue
	Handler Handler
	// Name is recorded in each claimed job's worker field.
	Name string
	// Concurrency is the number of jobs run at once (default 1).
	Concurrency int
	// VisibilityTimeout is how long a claimed job may run before it is
	// considered abandoned and handed to another worker (default 30 s).
	VisibilityTimeout time.Duration
	// MaxAttempts is the number of claims after which a failing job goes
	// to the dead-letter state (default 5).
	MaxAttempts int
	// PollInterval is the wait between polls of an empty queue (default 50 ms).
	PollInterval time.Duration
	// ByPriority dequeues by priority instead of FIFO.
	ByPriority bool
	// ShutdownTimeout bounds how long Run waits, once its context is done,
	// for running handlers to return (default 10 s). A handler still
	// running after it is abandoned: Run returns, and the handler's job is
	// left claimed, to be requeued after the visibility timeout.
	ShutdownTimeout time.Duration
	// Logger receives errors; nil uses slog.Default().
	Logger *slog.Logger
}

func (w *Worker) defaults() {
	if w.Concurrency <= 0 {
		w.Concurrency = 1
	}
	if w.VisibilityTimeout <= 0 {
		w.VisibilityTimeout = 30 * time.Second
	}
	if w.MaxAttempts <= 0 {
		w.MaxAttempts = 5
	}
	if w.PollInterval <= 0 {
		w.PollInterval = 50 * time.Millisecond
	}
	if w.ShutdownTimeout <= 0 {
		w.ShutdownTimeout = 10 * time.Second
	}
	if w.Logger == nil {
		w.Logger = slog.Default()
	}
}

// Run processes jobs until ctx is done. When ctx ends, Run stops claiming
// and returns once running handlers return, or after ShutdownTimeout if
// some never do (a hung handler cannot keep Run from returning). A job
// whose handler was cut off is not touched, so it behaves like a job of a
// crashed worker: it is claimed again after the visibility timeout.
//
// Each handler's context is cancelled when the job's visibility timeout
// passes, since the job may then be handed to another worker. A handler
// that ignores this and returns later cannot finish or release the job: both
// are conditional on the claim id, which the requeue cleared, so a stale
// worker never completes a job it no longer owns.
func (w *Worker) Run(ctx context.Context) error {
	if w.Queue == nil || w.Handler == nil {
		return errors.New("queue: worker needs a Queue and a Handler")
	}
	w.defaults()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // requeue abandoned jobs
		defer wg.Done()
		tick := time.NewTicker(max(w.VisibilityTimeout/4, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if _, _, err := w.Queue.Requeue(ctx, w.VisibilityTimeout, w.MaxAttempts); err != nil && ctx.Err() == nil {
					w.Logger.Warn("queue: requeue", "err", err)
				}
			}
		}
	}()
	for i := 0; i < w.Concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(ctx)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		t := time.NewTimer(w.ShutdownTimeout)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			w.Logger.Warn("queue: worker stopped with handlers still running", "worker", w.Name, "waited", w.ShutdownTimeout)
		}
	}
	return ctx.Err()
}

func (w *Worker) loop(ctx context.Context) {
	order := fifoOrder
	if w.ByPriority {
		order = priorityOrder
	}
	for ctx.Err() == nil {
		j, err := w.Queue.next(ctx, order, w.Name)
		if err != nil {
			if !errors.Is(err, ErrEmpty) && ctx.Err() == nil {
				w.Logger.Warn("queue: claim", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(w.PollInterval):
			}
			continue
		}
		jctx, cancel := context.WithTimeout(ctx, w.VisibilityTimeout)
		herr := w.run(jctx, j)
		cancel()
		if ctx.Err() != nil {
			return // cut off: leave the claim to time out
		}
		if herr == nil {
			err = w.Queue.FinishClaim(ctx, j)
		} else {
			err = w.Queue.Release(ctx, j, herr, w.MaxAttempts)
		}
		if errors.Is(err, ErrClaimLost) {
			w.Logger.Warn("queue: job was requeued while its handler ran; result dropped", "job", j.ID.Hex(), "worker", w.Name)
		} else if err != nil && ctx.Err() == nil {
			w.Logger.Warn("queue: complete job", "job", j.ID.Hex(), "err", err)
		}
	}
}

// run calls the handler, turning a panic into an error.
func (w *Worker) run(ctx context.Context, j *Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("queue: handler panic: %v", r)
		}
	}()
	return w.Handler(ctx, j)
}
