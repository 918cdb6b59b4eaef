package server

import (
	"errors"
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

	// The callbacks RawConn.Read and Write run, bound once (a closure
	// made per call escapes to the heap), and their arguments and
	// results: a connection's reads are sequential, and so are its
	// writes.
	readFn, writeFn func(fd uintptr) bool
	rp, wp          []byte
	rn, wdone       int
	rerr, werr      syscall.Errno
	// loopFD is the socket's descriptor within runLoop.
	loopFD uintptr
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
	c := &rawIOConn{TCPConn: tc, rc: rc}
	c.readFn, c.writeFn = c.readSome, c.writeAll
	return c
}

func (c *rawIOConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rp, c.rn, c.rerr = p, 0, 0
	err := c.rc.Read(c.readFn)
	n, errno := c.rn, c.rerr
	c.rp = nil
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readSome reads once into c.rp, reporting false (wait) on EAGAIN.
func (c *rawIOConn) readSome(fd uintptr) bool {
	n, errno := sysRead(fd, c.rp)
	if errno == syscall.EAGAIN {
		return false // wait until readable
	}
	c.rn, c.rerr = n, errno
	return true
}

// sysRead reads fd once into p (not empty), again when interrupted.
func sysRead(fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if errno != syscall.EINTR {
			if errno == 0 && n > 0 {
				raceAcquireIO()
			}
			return int(n), errno
		}
	}
}

// opError is net.TCPConn's error for a failed read or write.
func (c *rawIOConn) opError(op string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError(op, errno)}
}

func (c *rawIOConn) Write(p []byte) (int, error) {
	c.wp, c.wdone, c.werr = p, 0, 0
	err := c.rc.Write(c.writeFn)
	done, errno := c.wdone, c.werr
	c.wp = nil
	switch {
	case err != nil:
		return done, err
	case errno != 0:
		return done, c.opError("write", errno)
	}
	return done, nil
}

// writeAll writes what is left of c.wp, reporting false (wait) on EAGAIN.
func (c *rawIOConn) writeAll(fd uintptr) bool {
	p := c.wp
	raceReleaseIO()
	for c.wdone < len(p) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[c.wdone])), uintptr(len(p)-c.wdone))
		switch e {
		case 0:
			c.wdone += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // wait until writable
		default:
			c.werr = e
			return true
		}
	}
	return true
}

// runLoop is loopConn's: step runs inside one RawConn.Read, whose
// callback it is; readNow reads the socket it was handed.
func (c *rawIOConn) runLoop(step func() bool) error {
	return c.rc.Read(func(fd uintptr) bool {
		c.loopFD = fd
		return step()
	})
}

// readNow reads the socket once without waiting: errWouldBlock when it
// has nothing, io.EOF when the peer closed it. Only within runLoop.
func (c *rawIOConn) readNow(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, errno := sysRead(c.loopFD, p)
	switch {
	case errno == syscall.EAGAIN:
		return 0, errWouldBlock
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// watchConn is loopConn's: a duplicate of the socket's descriptor as a
// connection of its own.
func (c *rawIOConn) watchConn() (net.Conn, error) {
	var (
		dup  int
		derr error
	)
	if err := c.rc.Control(func(fd uintptr) { dup, derr = syscall.Dup(int(fd)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	f := os.NewFile(uintptr(dup), "watch")
	defer f.Close() // FileConn holds a duplicate of its own
	return net.FileConn(f)
}

// peek is loopConn's: recv with MSG_PEEK through nc's own poller wait.
func (c *rawIOConn) peek(nc net.Conn) error {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var (
		b     [1]byte
		n     uintptr
		errno syscall.Errno
	)
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.Syscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1,
				syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			return true
		}
	})
	switch {
	case err != nil:
		return err
	case errno != 0:
		return os.NewSyscallError("recvfrom", errno)
	case n == 0:
		return io.EOF
	}
	return nil
}
