package storage

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkLogCommitIO measures the system calls of one lone j:true
// commit's log write, outside Lode: a 4 KiB page rewritten in place in a
// zero-filled file, as the log's direct writes do, then made durable. It
// reports the calling thread's CPU per commit (sys-us/op is the kernel's
// share), the figure that chose O_DSYNC for the direct descriptor
// (waldirect.go):
//
//	go test -run '^$' -bench LogCommitIO -benchtime 3000x ./internal/storage/
//
// buffered-fdatasync is PostgreSQL's way (write through the page cache,
// then fdatasync), direct-fdatasync Lode's before, direct-dsync Lode's now.
func BenchmarkLogCommitIO(b *testing.B) {
	dir := b.TempDir()
	name := filepath.Join(dir, "log")
	if err := os.WriteFile(name, make([]byte, 16<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	page := alignedPages(walPage)
	for i := range 300 {
		page[i] = byte(i)
	}
	open := func(flags int) int {
		fd, err := unix.Open(name, unix.O_WRONLY|flags, 0)
		if err != nil {
			b.Skip("this filesystem refuses", err)
		}
		return fd
	}
	for _, c := range []struct {
		name  string
		flags int
		sync  bool
	}{
		{"buffered-fdatasync", 0, true},
		{"direct-fdatasync", syscall.O_DIRECT, true},
		{"direct-dsync", syscall.O_DIRECT | syscall.O_DSYNC, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			fd := open(c.flags)
			defer unix.Close(fd)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var r0, r1 unix.Rusage
			_ = unix.Getrusage(unix.RUSAGE_THREAD, &r0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				off := int64(i*300) &^ (walPage - 1) % (8 << 20)
				if _, err := unix.Pwrite(fd, page, off); err != nil {
					b.Fatal(err)
				}
				if c.sync {
					if err := unix.Fdatasync(fd); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			_ = unix.Getrusage(unix.RUSAGE_THREAD, &r1)
			us := func(a, z unix.Timeval) float64 {
				return float64(z.Nano()-a.Nano()) / 1e3 / float64(b.N)
			}
			b.ReportMetric(us(r0.Utime, r1.Utime), "user-us/op")
			b.ReportMetric(us(r0.Stime, r1.Stime), "sys-us/op")
		})
	}
}
