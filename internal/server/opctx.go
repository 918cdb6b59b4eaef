package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// opCtx is the cancellable context a command runs under, with its
// maxTimeMS deadline, built into its runningOp (currentop.go) so that a
// command that never waits on it costs no allocation and no timer: the
// Done channel is made, and the deadline's timer armed, only when
// something asks for Done (or ties a child context to it); Err compares
// the deadline with the clock. killOp, a disconnect and the end of the
// command cancel it.
//
// Under a parent that can itself be cancelled (a caller's context in
// process) it falls back to context.WithCancel or WithTimeout (inner),
// and delegates to that.
type opCtx struct {
	parent   context.Context // never done, unless inner is set
	deadline time.Time       // zero: none

	inner       context.Context
	innerCancel context.CancelFunc

	mu     sync.Mutex
	done   chan struct{} // made by the first Done
	err    error         // context.Canceled or DeadlineExceeded once over
	timer  *time.Timer   // fires at the deadline, armed by Done
	afters map[*opAfter]struct{}

	// doneA and over mirror done and err for Done and Err without the
	// mutex: a scan may ask every few documents.
	doneA atomic.Value // chan struct{}, once made
	over  atomic.Bool
}

// opAfter is a function AfterFunc registered.
type opAfter struct{ f func() }

// init sets the context up under parent with a deadline maxTime after
// start when maxTime is positive.
func (c *opCtx) init(parent context.Context, maxTime time.Duration, start time.Time) {
	if parent.Done() != nil {
		if maxTime > 0 {
			c.inner, c.innerCancel = context.WithTimeout(parent, maxTime)
		} else {
			c.inner, c.innerCancel = context.WithCancel(parent)
		}
		c.parent = c.inner
		return
	}
	c.parent = parent
	if maxTime > 0 {
		c.deadline = start.Add(maxTime)
	}
}

// Deadline implements context.Context.
func (c *opCtx) Deadline() (time.Time, bool) {
	if c.inner != nil {
		return c.inner.Deadline()
	}
	return c.deadline, !c.deadline.IsZero()
}

// Done implements context.Context.
func (c *opCtx) Done() <-chan struct{} {
	if c.inner != nil {
		return c.inner.Done()
	}
	if d, ok := c.doneA.Load().(chan struct{}); ok {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchLocked()
	return c.done
}

// watchLocked makes the done channel and arms the deadline's timer.
func (c *opCtx) watchLocked() {
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		}
		c.doneA.Store(c.done)
	}
	if c.err != nil || c.timer != nil || c.deadline.IsZero() {
		return
	}
	d := time.Until(c.deadline)
	if d <= 0 {
		c.endLocked(context.DeadlineExceeded)
		return
	}
	c.timer = time.AfterFunc(d, func() { c.end(context.DeadlineExceeded) })
}

// Err implements context.Context. Past the deadline it is
// DeadlineExceeded, whether or not a timer has fired.
func (c *opCtx) Err() error {
	if c.inner != nil {
		return c.inner.Err()
	}
	if !c.over.Load() && (c.deadline.IsZero() || time.Now().Before(c.deadline)) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.endLocked(context.DeadlineExceeded)
	}
	return c.err
}

// AfterFunc runs f in its own goroutine once the context is over (at
// once if it is); stop unregisters it, reporting whether it did so
// before f was started. The context package uses it to tie a child
// context (WithCancel over the op) to this one without a goroutine.
func (c *opCtx) AfterFunc(f func()) (stop func() bool) {
	if c.inner != nil {
		return context.AfterFunc(c.inner, f)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchLocked()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	a := &opAfter{f: f}
	if c.afters == nil {
		c.afters = map[*opAfter]struct{}{}
	}
	c.afters[a] = struct{}{}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.afters[a]
		delete(c.afters, a)
		return ok
	}
}

// cancel ends the context with context.Canceled (killOp, a disconnect,
// the command's end); it does nothing to one already over.
func (c *opCtx) cancel() {
	if c.inner != nil {
		c.innerCancel()
		return
	}
	c.end(context.Canceled)
}

func (c *opCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(err)
}

func (c *opCtx) endLocked(err error) {
	if c.err != nil {
		return
	}
	c.err = err
	c.over.Store(true)
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	for a := range c.afters {
		go a.f()
	}
	c.afters = nil
}
