// Package procs runs the server's Go scheduler on one processor while
// requests arrive one at a time, and on all of them otherwise.
//
// A lone client's request is sequential: it is read, committed, waits for
// its fsync and is answered. With a second processor idle, each goroutine
// the request wakes (Pebble's WAL writer, then the request again when the
// sync is done) makes the Go runtime wake an idle thread to look for
// work; it finds none and sleeps again. On a virtual machine those futex
// wakes and context switches cost more CPU than the request's own work
// (docs/benchmarks.md, "Issue 33: one processor while requests come one
// at a time"). PostgreSQL's backend and mongod's connection thread do not
// pay them: each request runs on one thread.
//
// The Adapter lowers GOMAXPROCS to 1 once requests have come one at a
// time (at most one started beside another per tick) and the process has
// used less than lowCPU of a core, for quietTicks ticks in a row. It
// raises it back at once when a request starts while two others run or
// when code that fans work out asks (Parallel), and at the next tick
// when requests overlapped twice or the process used nearly a core.
// On Linux, while lowered, every thread of the process is also kept on
// one processor (pin_linux.go): the scheduler otherwise moves a lone
// request's threads between processors, and its caches go cold each time
// (docs/benchmarks.md, "Lode's threads kept on one processor"). That
// processor is the one taking the interrupts of the data directory's
// disk when the system says which (KeepNearDisk, disk_linux.go), so that
// a commit's waits for the disk end without a wake-up across processors;
// else the one the change was made from. The start's mask comes back
// before the count rises.
// Only `lode serve` starts one: an embedding program's scheduler is its
// own.
package procs

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Tuning: the tick; the quiet ticks before lowering; the CPU use, in
// cores, under which a tick is quiet and from which one processor is too
// few (apart enough that the lowered server's own use, about two thirds
// of the raised one's, does not cross back).
const (
	tick       = 100 * time.Millisecond
	quietTicks = 5
	lowCPU     = 0.75
	highCPU    = 0.9
	// busyOverlaps requests started beside another in a tick make it
	// a busy one.
	busyOverlaps = 2
)

// Adapter decides the processor count. The methods of a nil Adapter do
// nothing.
type Adapter struct {
	full     int
	notify   func(procs int)
	on       atomic.Bool // between Start and Stop
	one      atomic.Bool // GOMAXPROCS is 1
	inflight atomic.Int32
	overlaps atomic.Int32 // requests started beside another since the last tick
	mu       sync.Mutex   // serialises the changes
	// mask is the process's processors at Start; canPin: it has two or
	// more, and while one processor runs the scheduler every thread is
	// kept on one of them (pin_linux.go).
	mask   threadMask
	canPin bool
	// disk is a path on the disk whose requests the server waits for
	// (KeepNearDisk); pinned is the processor the threads are kept on
	// while lowered, or -1.
	disk   atomic.Pointer[string]
	pinned atomic.Int32
	// The last lookup of disk's processor (diskProcessor, under mu).
	diskCPU int
	diskAt  time.Time
	diskFor string
	lowered atomic.Int64
	raised  atomic.Int64
	stop    chan struct{}
	done    chan struct{}
}

// current is the started Adapter, which the package functions use.
var current atomic.Pointer[Adapter]

// Start begins adapting the count of a process that runs on full
// processors (runtime.GOMAXPROCS(0) at start), and makes the Adapter the
// one Enter, Leave and Parallel use. notify, when not nil, is told each
// new count. It returns nil, and adapts nothing, when full is below 2 or
// the system does not report the process's CPU time.
func Start(full int, notify func(procs int)) *Adapter {
	if _, ok := processCPU(); full < 2 || !ok {
		return nil
	}
	a := &Adapter{full: full, notify: notify, stop: make(chan struct{}), done: make(chan struct{})}
	a.mask, a.canPin = savedMask()
	a.pinned.Store(-1)
	a.on.Store(true)
	current.Store(a)
	go a.loop()
	return a
}

// KeepNearDisk makes the processor the threads are kept on while lowered
// the one taking the interrupts of the disk holding path, the data
// directory, where the system says which (pin_linux.go, disk_linux.go).
func (a *Adapter) KeepNearDisk(path string) {
	if a != nil {
		a.disk.Store(&path)
	}
}

// Pinned is the processor every thread is kept on, or -1.
func (a *Adapter) Pinned() int {
	if a == nil {
		return -1
	}
	return int(a.pinned.Load())
}

// Stop ends adapting and restores the full count.
func (a *Adapter) Stop() {
	if a == nil || !a.on.Swap(false) {
		return
	}
	close(a.stop)
	<-a.done
	current.CompareAndSwap(a, nil)
	a.set(false)
}

// Enter and Leave bracket a request, on the started Adapter.
func Enter() { current.Load().Enter() }

// Leave ends a request begun with Enter.
func Leave() { current.Load().Leave() }

// Parallel raises the count, on the started Adapter, before code fans
// work out over runtime.GOMAXPROCS(0) goroutines.
func Parallel() { current.Load().Parallel() }

// Enter brackets a request with Leave. A request that starts while two
// others run raises the count at once; one that starts while one other
// runs is counted, and two such in a tick raise it (a single one is
// often a driver's heartbeat beside a client's request).
func (a *Adapter) Enter() {
	if a == nil {
		return
	}
	n := a.inflight.Add(1)
	if n < 2 {
		return
	}
	a.overlaps.Add(1)
	if n >= 3 && a.one.Load() {
		a.set(false)
	}
}

// Leave ends a request begun with Enter.
func (a *Adapter) Leave() {
	if a == nil {
		return
	}
	a.inflight.Add(-1)
}

// Parallel raises the count if it is lowered.
func (a *Adapter) Parallel() {
	if a == nil || !a.one.Load() {
		return
	}
	a.set(false)
	a.overlaps.Store(busyOverlaps) // not lowered again before a quiet run of ticks
}

// Stats reports the process's processor count and how often the Adapter
// lowered and raised it.
func (a *Adapter) Stats() (procs int, lowered, raised int64) {
	if a == nil {
		return runtime.GOMAXPROCS(0), 0, 0
	}
	return runtime.GOMAXPROCS(0), a.lowered.Load(), a.raised.Load()
}

// Current is the started Adapter, or nil.
func Current() *Adapter { return current.Load() }

// set lowers the count to one or raises it to the full count. Stopped,
// it only raises.
func (a *Adapter) set(one bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.one.Load() == one || (one && !a.on.Load()) {
		return
	}
	n := a.full
	if one {
		n = 1
		a.lowered.Add(1)
	} else {
		a.raised.Add(1)
		if a.canPin {
			unpin(a.mask) // before the processors it would use
		}
	}
	runtime.GOMAXPROCS(n)
	a.pinned.Store(-1)
	if one && a.canPin {
		a.pinned.Store(int32(pin(a.mask, a.diskProcessor())))
	}
	a.one.Store(one)
	if a.notify != nil {
		a.notify(n)
	}
}

// diskProcessor is the processor taking the interrupts of the disk given
// to KeepNearDisk, or -1; looked up again at most every diskRecheck
// (under mu), since a lowering can come twice a second and
// /proc/interrupts is long on a large machine.
func (a *Adapter) diskProcessor() int {
	d := a.disk.Load()
	if d == nil {
		return -1
	}
	if now := time.Now(); a.diskAt.IsZero() || now.Sub(a.diskAt) >= diskRecheck || *d != a.diskFor {
		a.diskCPU, a.diskAt, a.diskFor = diskProcessor(*d), now, *d
	}
	return a.diskCPU
}

// diskRecheck bounds how often the disk's processor is looked up.
const diskRecheck = time.Minute

// loop samples the process's CPU use and the requests' overlap each tick.
func (a *Adapter) loop() {
	defer close(a.done)
	t := time.NewTicker(tick)
	defer t.Stop()
	lastCPU, _ := processCPU()
	lastAt := time.Now()
	quiet := 0
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		}
		cpu, _ := processCPU()
		now := time.Now()
		use := float64(cpu-lastCPU) / float64(now.Sub(lastAt))
		lastCPU, lastAt = cpu, now
		overlaps := a.overlaps.Swap(0)
		if a.one.Load() {
			if overlaps >= busyOverlaps || use >= highCPU {
				a.set(false)
			}
			quiet = 0
			continue
		}
		if overlaps < busyOverlaps && use < lowCPU {
			quiet++
		} else {
			quiet = 0
		}
		if quiet >= quietTicks {
			a.set(true)
			quiet = 0
		}
	}
}
