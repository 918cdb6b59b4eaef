package procs

import (
	"os"
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// threadMasks reads the processor mask of every thread of the process.
func threadMasks(t *testing.T) map[int]unix.CPUSet {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]unix.CPUSet{}
	for _, e := range ents {
		tid, _ := strconv.Atoi(e.Name())
		var m unix.CPUSet
		if unix.SchedGetaffinity(tid, &m) == nil {
			out[tid] = m
		}
	}
	return out
}

// TestPinFollowsProcs: lowered to one processor, every thread of the
// process is kept on one processor, the same for all, and threads made
// meanwhile too; raised, every thread has the start's mask back.
func TestPinFollowsProcs(t *testing.T) {
	start, ok := savedMask()
	if !ok {
		t.Skip("the process may run on one processor only")
	}
	full := runtime.GOMAXPROCS(0)
	if full < 2 {
		runtime.GOMAXPROCS(2)
		full = 2
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	a := Start(full, nil)
	if a == nil {
		t.Skip("this system does not report the process's CPU time")
	}
	defer a.Stop()
	a.set(true)
	done := make(chan struct{})
	go func() { // a thread made while pinned
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- struct{}{}
		<-done
	}()
	<-done
	var cpu = -1
	for tid, m := range threadMasks(t) {
		if m.Count() != 1 {
			t.Fatalf("lowered: thread %d may run on %d processors, want 1", tid, m.Count())
		}
		for c := range 1024 {
			if m.IsSet(c) {
				if cpu >= 0 && c != cpu {
					t.Fatalf("lowered: threads on processors %d and %d, want one", cpu, c)
				}
				cpu = c
			}
		}
	}
	a.set(false)
	for tid, m := range threadMasks(t) {
		if m != start {
			t.Fatalf("raised: thread %d has mask %v, want the start's %v", tid, m, start)
		}
	}
	done <- struct{}{}
}
