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
// meanwhile too; it is the one taking the interrupts of the disk given
// to KeepNearDisk when the system says which, and Pinned names it;
// raised, every thread has the start's mask back.
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
	disk := t.TempDir()
	a.KeepNearDisk(disk)
	want := diskProcessor(disk)
	if !start.IsSet(want) {
		want = -1
	}
	t.Logf("the disk's processor: %d", want)
	// Lower from another processor than the disk's, so that the one the
	// change is made from would not do.
	runtime.LockOSThread()
	if want >= 0 {
		for c := range 1024 {
			if c != want && start.IsSet(c) {
				var other unix.CPUSet
				other.Set(c)
				if err := unix.SchedSetaffinity(0, &other); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	a.set(true)
	runtime.UnlockOSThread()
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
	if want >= 0 && cpu != want {
		t.Fatalf("lowered: threads on processor %d, want the disk's %d", cpu, want)
	}
	if a.Pinned() != cpu {
		t.Fatalf("Pinned() = %d, want %d", a.Pinned(), cpu)
	}
	a.set(false)
	if a.Pinned() != -1 {
		t.Fatalf("raised: Pinned() = %d, want -1", a.Pinned())
	}
	for tid, m := range threadMasks(t) {
		if m != start {
			t.Fatalf("raised: thread %d has mask %v, want the start's %v", tid, m, start)
		}
	}
	done <- struct{}{}
}
