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
func rawWrite(fd uintptr, name string, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return n, &os.PathError{Op: "write", Path: name, Err: e}
		case r == 0:
			return n, &os.PathError{Op: "write", Path: name, Err: io.ErrShortWrite}
		}
		n += int(r)
	}
	return n, nil
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
