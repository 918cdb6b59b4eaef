//go:build !linux

package procs

// threadMask is empty where threads are not pinned (Linux only).
type threadMask struct{}

func savedMask() (threadMask, bool) { return threadMask{}, false }
func pin(threadMask, int) int       { return -1 }
func diskProcessor(string) int      { return -1 }
func unpin(threadMask)              {}
