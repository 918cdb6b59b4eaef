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
	if w.Logger == nil {
		w.Logger = slog.Default()
	}
}

// Run processes jobs until ctx is done. When ctx ends, Run stops claiming
// and returns once running handlers return; a job whose handler was cut
// off is not touched, so it behaves like a job of a crashed worker: it is
// claimed again after the visibility timeout.
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
	wg.Wait()
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
		herr := w.run(ctx, j)
		if ctx.Err() != nil {
			return // cut off: leave the claim to time out
		}
		if herr == nil {
			err = w.Queue.FinishClaim(ctx, j)
		} else {
			err = w.Queue.Release(ctx, j, herr, w.MaxAttempts)
		}
		if err != nil && ctx.Err() == nil {
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
