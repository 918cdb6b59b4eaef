package storage

import "golang.org/x/sys/unix"

// extendFile gives the file n more bytes from off, reading as zeros, and
// the size off+n (fallocate without KEEP_SIZE).
func extendFile(fd uintptr, off, n int64) error {
	return unix.Fallocate(int(fd), 0, off, n)
}
