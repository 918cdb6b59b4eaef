package procs

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// waitProcs waits up to d for GOMAXPROCS to become want.
func waitProcs(t *testing.T, want int, d time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for runtime.GOMAXPROCS(0) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s: GOMAXPROCS is %d after %v, want %d", what, runtime.GOMAXPROCS(0), d, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAdapter follows the count through what the server does: idle, it
// is lowered after the quiet ticks; a single overlap of two requests
// does not raise it, two overlaps in a tick do, three requests at once
// raise it at once, and so do Parallel and a process that uses a whole
// core; Stop restores it.
func TestAdapter(t *testing.T) {
	full := runtime.GOMAXPROCS(0)
	if full < 2 {
		runtime.GOMAXPROCS(2)
		full = 2
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var told atomic.Int64
	a := Start(full, func(n int) { told.Add(1) })
	if a == nil {
		t.Skip("this system does not report the process's CPU time")
	}
	defer a.Stop()
	if Current() != a {
		t.Fatal("Current is not the started Adapter")
	}

	// One request at a time, then none: lowered.
	Enter()
	Leave()
	waitProcs(t, 1, 3*time.Second, "idle")
	if _, lowered, _ := a.Stats(); lowered != 1 {
		t.Fatalf("lowered %d times, want 1", lowered)
	}

	// One request beside another (a driver's heartbeat beside a
	// client's request): not raised.
	Enter()
	Enter()
	Leave()
	time.Sleep(3 * tick)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("one overlap: GOMAXPROCS %d, want 1", n)
	}
	// Two overlaps in a tick: raised at the tick.
	Enter()
	Leave()
	Enter()
	Leave()
	Leave()
	waitProcs(t, full, 3*tick, "two overlaps")
	waitProcs(t, 1, 3*time.Second, "idle again")

	// A third request while two run: raised before Enter returns.
	Enter()
	Enter()
	Enter()
	if n := runtime.GOMAXPROCS(0); n != full {
		t.Fatalf("three requests at once: GOMAXPROCS %d, want %d", n, full)
	}
	Leave()
	Leave()
	Leave()
	waitProcs(t, 1, 3*time.Second, "idle again")

	// A fan-out raises it, and it stays raised for the quiet ticks.
	Parallel()
	if n := runtime.GOMAXPROCS(0); n != full {
		t.Fatalf("Parallel: GOMAXPROCS %d, want %d", n, full)
	}
	time.Sleep(2 * tick)
	if n := runtime.GOMAXPROCS(0); n != full {
		t.Fatalf("lowered again %v after Parallel", 2*tick)
	}
	waitProcs(t, 1, 3*time.Second, "idle after Parallel")

	// A process that uses a whole core on one processor: raised at a
	// tick, and not lowered while it keeps doing so.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		x := 0
		for {
			select {
			case <-stop:
				return
			default:
			}
			for i := range 10000 {
				x += i
			}
			_ = x
		}
	}()
	c0, _ := processCPU()
	t0 := time.Now()
	for runtime.GOMAXPROCS(0) != full && time.Since(t0) < 2*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	c1, _ := processCPU()
	switch use := float64(c1-c0) / float64(time.Since(t0)); {
	case runtime.GOMAXPROCS(0) == full:
		time.Sleep(time.Duration(quietTicks+2) * tick)
		if n := runtime.GOMAXPROCS(0); n != full {
			t.Fatalf("busy: lowered to %d", n)
		}
	case use >= highCPU:
		t.Fatalf("busy: the process used %.2f cores for 2s on one processor and the count was not raised", use)
	default:
		// Other processes held the machine: one processor was all
		// this one could use, and raising would not have helped.
		t.Logf("busy: the process got only %.2f of a core; not raised, as it should not be", use)
	}
	close(stop)
	<-done
	waitProcs(t, 1, 3*time.Second, "idle after the busy spell")

	a.Stop()
	if n := runtime.GOMAXPROCS(0); n != full {
		t.Fatalf("after Stop: GOMAXPROCS %d, want %d", n, full)
	}
	if Current() != nil {
		t.Fatal("Current after Stop is not nil")
	}
	Enter() // the package functions do nothing once stopped
	Leave()
	Parallel()
	_, lowered, raised := a.Stats()
	if lowered < 4 || raised < 4 || told.Load() != lowered+raised {
		t.Fatalf("lowered %d, raised %d, told %d", lowered, raised, told.Load())
	}
}

// TestStartNeedsTwo: nothing to adapt on one processor.
func TestStartNeedsTwo(t *testing.T) {
	if a := Start(1, nil); a != nil {
		a.Stop()
		t.Fatal("Start(1) adapts")
	}
}
