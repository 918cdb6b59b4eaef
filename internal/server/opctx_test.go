package server

import (
	"context"
	"testing"
	"time"

	"github.com/lodedb/lode/internal/opstats"
)

type opCtxKey struct{}

// newTestOp is a running op under parent, as beginOp makes it.
func newTestOp(parent context.Context, maxTime time.Duration) *runningOp {
	op := &runningOp{}
	op.opCtx.init(parent, maxTime, time.Now())
	return op
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestOpCtxCancel: an op's context without a deadline is live until
// cancelled, then Canceled, with its Done closed whether it was asked for
// before or after; it carries the op and its parent's values.
func TestOpCtxCancel(t *testing.T) {
	parent := context.WithValue(context.Background(), opCtxKey{}, "v")
	for _, askFirst := range []bool{true, false} {
		op := newTestOp(parent, 0)
		var ctx context.Context = op
		if _, ok := ctx.Deadline(); ok {
			t.Fatal("a deadline without maxTime")
		}
		if ctx.Value(opCtxKey{}) != "v" || opstats.HolderFrom(ctx) != opstats.Holder(op) {
			t.Fatal("values lost")
		}
		var done <-chan struct{}
		if askFirst {
			done = ctx.Done()
			if closed(done) {
				t.Fatal("Done closed before cancel")
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("Err %v before cancel", ctx.Err())
		}
		op.cancel()
		op.cancel() // again: nothing
		if !askFirst {
			done = ctx.Done()
		}
		if !closed(done) || ctx.Err() != context.Canceled || context.Cause(ctx) != context.Canceled {
			t.Fatalf("after cancel: closed %v, err %v, cause %v", closed(done), ctx.Err(), context.Cause(ctx))
		}
	}
}

// TestOpCtxDeadline: past its deadline an op's context is
// DeadlineExceeded by the clock even with no timer armed, and a Done
// asked for before closes at the deadline.
func TestOpCtxDeadline(t *testing.T) {
	op := newTestOp(context.Background(), 20*time.Millisecond)
	if dl, ok := op.Deadline(); !ok || time.Until(dl) > 20*time.Millisecond {
		t.Fatalf("deadline %v %v", dl, ok)
	}
	if op.timer != nil || op.done != nil {
		t.Fatal("timer or channel made before anyone asked")
	}
	time.Sleep(30 * time.Millisecond)
	if op.Err() != context.DeadlineExceeded || !closed(op.Done()) {
		t.Fatalf("past the deadline: err %v", op.Err())
	}
	op.cancel()
	if op.Err() != context.DeadlineExceeded {
		t.Fatalf("cancel after the deadline changed err to %v", op.Err())
	}

	op = newTestOp(context.Background(), 20*time.Millisecond)
	done := op.Done()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed at the deadline")
	}
	if op.Err() != context.DeadlineExceeded {
		t.Fatalf("err %v", op.Err())
	}
}

// TestOpCtxChildren: a context derived from an op's ends with it (by
// cancel or deadline) through AfterFunc, without a goroutine per child,
// and a child cancelled first unregisters.
func TestOpCtxChildren(t *testing.T) {
	op := newTestOp(context.Background(), 0)
	child, cancelChild := context.WithCancel(op)
	if len(op.afters) != 1 {
		t.Fatalf("%d functions registered for the child, want 1", len(op.afters))
	}
	cancelChild()
	if len(op.afters) != 0 {
		t.Fatalf("%d functions registered after the child ended", len(op.afters))
	}
	if child.Err() != context.Canceled {
		t.Fatal(child.Err())
	}
	child, cancelChild = context.WithCancel(op)
	defer cancelChild()
	ran := make(chan struct{})
	context.AfterFunc(op, func() { close(ran) })
	op.cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("child not cancelled with the op")
	}
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("AfterFunc did not run")
	}
	if child.Err() != context.Canceled {
		t.Fatal(child.Err())
	}
	// A function registered on an op already over runs at once.
	again := make(chan struct{})
	stop := context.AfterFunc(op, func() { close(again) })
	<-again
	if stop() {
		t.Fatal("stop reported an already started function as stopped")
	}

	op = newTestOp(context.Background(), 20*time.Millisecond)
	child, cancelChild = context.WithTimeout(op, time.Hour)
	defer cancelChild()
	if dl, _ := child.Deadline(); time.Until(dl) > time.Second {
		t.Fatalf("child deadline %v is not the op's", dl)
	}
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("child not cancelled at the op's deadline")
	}
	if child.Err() != context.DeadlineExceeded {
		t.Fatal(child.Err())
	}
}

// TestOpCtxCancellableParent: under a parent that can be cancelled, the
// op's context ends with it, and cancelling the op leaves the parent.
func TestOpCtxCancellableParent(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), opCtxKey{}, "v"))
	op := newTestOp(parent, time.Hour)
	if _, ok := op.Deadline(); !ok || op.Value(opCtxKey{}) != "v" || opFrom(op) != op {
		t.Fatal("deadline or values lost")
	}
	child, cancelChild := context.WithCancel(op)
	defer cancelChild()
	cancel()
	if op.Err() != context.Canceled || !closed(op.Done()) {
		t.Fatalf("op err %v after its parent's cancel", op.Err())
	}
	<-child.Done()

	parent, cancel = context.WithCancel(context.Background())
	defer cancel()
	op = newTestOp(parent, 0)
	op.cancel()
	if op.Err() != context.Canceled || parent.Err() != nil {
		t.Fatalf("op %v, parent %v", op.Err(), parent.Err())
	}
}
