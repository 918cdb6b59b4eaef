package procs

import (
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadMask is the processors the process may run on, read when the
// Adapter starts; unpin gives every thread this mask back.
type threadMask = unix.CPUSet

// savedMask reads the calling thread's processors, which every thread of
// the process has until an Adapter pins them.
func savedMask() (threadMask, bool) {
	var m unix.CPUSet
	if err := unix.SchedGetaffinity(0, &m); err != nil || m.Count() < 2 {
		return m, false
	}
	return m, true
}

// pin keeps every thread of the process on processor prefer when mask
// has it, else on the one the calling thread runs on (one of mask's),
// and returns that processor, or -1 when it kept none; unpin puts them
// back on mask. New threads take their creator's mask, so a thread made
// while pinned is pinned too. Two passes over the threads: one made
// during the first may have had an unpinned creator.
func pin(mask threadMask, prefer int) int {
	cpu := prefer
	if cpu < 0 || !mask.IsSet(cpu) {
		var now uint32
		if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&now)), 0, 0); e != 0 || !mask.IsSet(int(now)) {
			return -1
		}
		cpu = int(now)
	}
	var one unix.CPUSet
	one.Set(cpu)
	setAll(&one)
	setAll(&one)
	return cpu
}

func unpin(mask threadMask) { setAll(&mask) }

// setAll sets the mask of every thread of the process; a thread that
// has exited meanwhile is no error.
func setAll(m *unix.CPUSet) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			_ = unix.SchedSetaffinity(tid, m)
		}
	}
}

// diskProcessor is the processor taking the interrupts of the disk
// holding path (disk_linux.go), or -1.
func diskProcessor(path string) int {
	if path == "" {
		return -1
	}
	if cpu, ok := diskCPU("/sys", "/proc", path); ok {
		return cpu
	}
	return -1
}
