package server

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawIOConn reads and writes a TCP connection's nonblocking socket with
// raw system calls, waiting through the runtime's poller (RawConn) only
// when the socket has nothing to give or take. net.TCPConn's own Read and
// Write go through syscall.Syscall, whose entersyscall wakes the runtime's
// sysmon thread whenever every P was idle: on a server that answers one
// small request at a time that is one extra thread wake-up and a burst of
// 20 µs sleeps per round trip, about a quarter of a ping's server CPU.
// A read or write on a nonblocking socket never blocks, so holding the P
// through it costs nothing; deadlines, Close and the poller behave as for
// net.TCPConn, whose other methods this one keeps.
type rawIOConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

// fastConn returns nc with rawIOConn's reads and writes when it is a TCP
// connection, else nc.
func fastConn(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	return &rawIOConn{TCPConn: tc, rc: rc}
}

func (c *rawIOConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait until readable
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("read", errno)}
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

func (c *rawIOConn) Write(p []byte) (int, error) {
	done := 0
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for done < len(p) {
			n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
			switch e {
			case 0:
				done += int(n)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until writable
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return done, err
	case errno != 0:
		return done, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("write", errno)}
	}
	return done, nil
}
