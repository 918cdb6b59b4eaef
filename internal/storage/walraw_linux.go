package storage

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// walRawIO: this system has the raw write and fdatasync below.
const walRawIO = true

// rawWrite writes all of p to fd with raw write calls, again when
// interrupted (walFile.Write says why raw).
func rawWrite(fd uintptr, name string, p []byte) (int, error) { return rawWriteAt(fd, name, p, -1) }

// rawPwrite writes all of p to fd at off with raw pwrite calls.
func rawPwrite(fd uintptr, name string, p []byte, off int64) (int, error) {
	return rawWriteAt(fd, name, p, off)
}

// rawWriteAt writes all of p at off (pwrite), or at the file's position
// when off is negative (write).
func rawWriteAt(fd uintptr, name string, p []byte, off int64) (int, error) {
	op := "write"
	if off >= 0 {
		op = "pwrite"
	}
	n := 0
	for n < len(p) {
		var r uintptr
		var e syscall.Errno
		if off < 0 {
			r, _, e = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
		} else {
			r, _, e = syscall.RawSyscall6(syscall.SYS_PWRITE64, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n), uintptr(off+int64(n)), 0, 0)
		}
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return n, &os.PathError{Op: op, Path: name, Err: e}
		case r == 0:
			return n, &os.PathError{Op: op, Path: name, Err: io.ErrShortWrite}
		}
		n += int(r)
	}
	return n, nil
}

// openDirect opens the file name for writing with O_DIRECT and O_DSYNC:
// a write returns once its bytes are on the disk, as if an fdatasync
// followed it, in one system call (on a disk without FUA the kernel
// sends the write, then a cache flush).
func openDirect(name string) (int, error) {
	return syscall.Open(name, syscall.O_WRONLY|syscall.O_DIRECT|syscall.O_DSYNC|syscall.O_CLOEXEC, 0)
}

func closeDirect(fd int) { syscall.Close(fd) }

// rawPwriteDirect writes p, whole pages from a page-aligned buffer, at
// off (a page boundary) to fd, opened with O_DIRECT. It returns EINVAL
// itself when the filesystem refuses the write.
func rawPwriteDirect(fd int, name string, p []byte, off int64) error {
	n := 0
	for n < len(p) {
		r, _, e := syscall.RawSyscall6(syscall.SYS_PWRITE64, uintptr(fd), uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n), uintptr(off+int64(n)), 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EINVAL && n == 0:
			return syscall.EINVAL
		case e != 0:
			return &os.PathError{Op: "pwrite", Path: name, Err: e}
		case r == 0 || int(r)%walPage != 0 && n+int(r) < len(p):
			return &os.PathError{Op: "pwrite", Path: name, Err: io.ErrShortWrite}
		}
		n += int(r)
	}
	return nil
}

// rawSync is fdatasync(fd) (data) or fsync(fd) as a raw call.
func rawSync(fd uintptr, name string, data bool) error {
	call, op := uintptr(syscall.SYS_FSYNC), "fsync"
	if data {
		call, op = syscall.SYS_FDATASYNC, "fdatasync"
	}
	for {
		_, _, e := syscall.RawSyscall(call, fd, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return &os.PathError{Op: op, Path: name, Err: e}
		}
		return nil
	}
}
