package storage

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// firstHole returns the offset of the first hole of the file at path
// (its size when it has none), or -1 where the filesystem cannot tell.
func firstHole(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	off, err := unix.Seek(int(f.Fd()), 0, unix.SEEK_HOLE)
	if err != nil {
		return -1
	}
	return off
}
