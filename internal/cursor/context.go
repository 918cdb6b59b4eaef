package cursor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// SwitchContext is a context whose deadline and cancellation are those of
// whichever command currently drives the cursor. Iterators are created
// with it once; each getMore switches it to its own command's context, so
// maxTimeMS bounds every batch and a finished command's cancellation never
// breaks the next getMore.
type SwitchContext struct {
	mu  sync.Mutex
	cur context.Context
	// gen counts the switches, so that an iterator can tell cheaply
	// that another command now drives it (Generation).
	gen atomic.Uint64
}

// NewSwitchContext returns a SwitchContext that starts with ctx's
// deadline and values.
func NewSwitchContext(ctx context.Context) *SwitchContext {
	return &SwitchContext{cur: ctx}
}

// Set makes ctx the context now in force.
func (s *SwitchContext) Set(ctx context.Context) {
	s.mu.Lock()
	s.cur = ctx
	s.mu.Unlock()
	s.gen.Add(1)
}

// Current returns the context in force now. A context that must be
// cancelled with the command (context.WithCancel and the like) is made
// from it, never from the SwitchContext itself: the context package ties
// a child to its parent's Done channel of the moment, and asks the parent
// for its error when that channel closes; by then the SwitchContext may
// answer for the next command (nil), and the context package panics.
func (s *SwitchContext) Current() context.Context { return s.get() }

// Generation returns how many times Set was called.
func (s *SwitchContext) Generation() uint64 { return s.gen.Load() }

func (s *SwitchContext) get() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Deadline implements context.Context.
func (s *SwitchContext) Deadline() (time.Time, bool) { return s.get().Deadline() }

// Done implements context.Context.
func (s *SwitchContext) Done() <-chan struct{} { return s.get().Done() }

// Err implements context.Context.
func (s *SwitchContext) Err() error { return s.get().Err() }

// Value implements context.Context.
func (s *SwitchContext) Value(key any) any { return s.get().Value(key) }
