package server

import (
	"context"
	"sync"
	"time"
)

// inserts lets awaitData cursors sleep until a write lands in their
// namespace instead of polling.
type inserts struct {
	mu sync.Mutex
	ch map[string]chan struct{}
}

// notify wakes every waiter on ns.
func (n *inserts) notify(ns string) {
	n.mu.Lock()
	ch := n.ch[ns]
	delete(n.ch, ns)
	n.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// wait blocks until ns is written to, d passes or ctx ends.
func (n *inserts) wait(ctx context.Context, ns string, d time.Duration) {
	n.mu.Lock()
	if n.ch == nil {
		n.ch = map[string]chan struct{}{}
	}
	ch := n.ch[ns]
	if ch == nil {
		ch = make(chan struct{})
		n.ch[ns] = ch
	}
	n.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}
