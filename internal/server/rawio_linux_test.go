package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection, the server's
// through fastConn.
func tcpPair(t *testing.T) (srv net.Conn, cli net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cli, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	srv = fastConn(nc)
	if _, ok := srv.(*rawIOConn); !ok {
		t.Fatalf("fastConn gave %T, want *rawIOConn", srv)
	}
	t.Cleanup(func() { srv.Close(); cli.Close() })
	return srv, cli
}

// A write far larger than the socket buffers completes through EAGAIN and
// the poller while the peer reads slowly, and every byte arrives in order.
func TestRawIOLargeWrite(t *testing.T) {
	srv, cli := tcpPair(t)
	want := make([]byte, 32<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	done := make(chan error, 1)
	go func() {
		n, err := srv.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		done <- err
	}()
	got := make([]byte, 0, len(want))
	buf := make([]byte, 4096)
	for len(got) < len(want) {
		n, err := cli.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
		if len(got) < 1<<20 {
			time.Sleep(time.Millisecond) // slow at first: the writer meets a full buffer
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bytes arrived changed or out of order")
	}
}

// Reads wait for data, honour deadlines as net.TCPConn does, and report
// the peer's close as EOF and a local close as net.ErrClosed.
func TestRawIOReadDeadlineEOFAndClose(t *testing.T) {
	srv, cli := tcpPair(t)
	go func() {
		time.Sleep(20 * time.Millisecond)
		cli.Write([]byte("hello"))
	}()
	buf := make([]byte, 16)
	n, err := srv.Read(buf)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read %q, %v; want hello", buf[:n], err)
	}
	srv.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	_, err = srv.Read(buf)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	srv.SetReadDeadline(time.Time{})
	cli.Close()
	if _, err := srv.Read(buf); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want EOF", err)
	}
	srv.Close()
	if _, err := srv.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v, want net.ErrClosed", err)
	}
	if _, err := srv.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after Close: %v, want net.ErrClosed", err)
	}
}

// A write to a peer that reset the connection fails instead of hanging.
func TestRawIOWriteToResetPeer(t *testing.T) {
	srv, cli := tcpPair(t)
	cli.(*net.TCPConn).SetLinger(0) // close sends a reset
	cli.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := srv.Write(make([]byte, 64<<10)); err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("writes to a reset connection kept succeeding")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A round trip of small reads and writes allocates nothing: RawConn's
// callbacks are bound once per connection, not made per call (a closure
// per call escapes to the heap, two or three objects per message).
func TestRawIOReadWriteDoNotAllocate(t *testing.T) {
	srv, cli := tcpPair(t)
	msg := []byte("0123456789abcdef")
	buf := make([]byte, 64)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := cli.Write(msg); err != nil {
			t.Fatal(err)
		}
		if n, err := io.ReadFull(srv, buf[:len(msg)]); err != nil || n != len(msg) {
			t.Fatal(n, err)
		}
		if _, err := srv.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(cli, buf[:len(msg)]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per round trip through rawIOConn, want 0", allocs)
	}
}
