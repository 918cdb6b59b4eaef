package server

import (
	"net"
	"time"

	"github.com/lodedb/lode/internal/mongolog"
)

// The disconnect watchdog: a command that runs longer than
// disconnectCheckDelay gets a goroutine that waits on its client's socket
// and cancels it if the client goes away, as mongod interrupts an
// operation whose client disconnected. One goroutine per server looks at
// the connections twice per delay, so that a command only stores its
// start (beginWatch) and clears it (endWatch): no timer per command.

// disconnectCheckDelay is how long a command runs before Lode starts
// watching its client's socket for a disconnect (up to half as long
// again: the watchdog's period).
const disconnectCheckDelay = 100 * time.Millisecond

// watching is conn.cmdStart once the watchdog started a watcher for the
// running command.
const watching = -1

// watchdogIdleTicks is how many periods without a running command the
// watchdog waits before it sleeps until one begins.
const watchdogIdleTicks = 20

// sinceStart is the server's monotonic clock for command starts: never 0
// or watching.
func (s *Server) sinceStart(now time.Time) int64 { return int64(now.Sub(s.started)) + 1 }

// beginWatch records the start of the command about to run, now;
// endWatch clears it when the command is done.
func (c *conn) beginWatch(now time.Time) {
	c.cmdStart.Store(c.s.sinceStart(now))
	if c.s.watchIdle.Load() {
		c.s.wakeWatchdog()
	}
}

// endWatch clears the command's start and, if the watchdog started a
// watcher that may be waiting on the socket, wakes it with a past read
// deadline and waits for it to let go of the reader.
func (c *conn) endWatch() {
	if st := c.cmdStart.Load(); st != watching && c.cmdStart.CompareAndSwap(st, 0) {
		return
	}
	// The watchdog sets watchDone with cmdStart, under watchMu.
	c.watchMu.Lock()
	done, wc := c.watchDone, c.watchNC
	c.watchDone, c.watchNC = nil, nil
	c.cmdStart.Store(0)
	c.watchMu.Unlock()
	if done == nil {
		return
	}
	if wc != nil {
		// The watcher's own handle on the socket (the poller loop's):
		// it closes it when it stops.
		_ = wc.SetReadDeadline(time.Now())
		<-done
		return
	}
	_ = c.nc.SetReadDeadline(time.Now())
	<-done
	_ = c.nc.SetReadDeadline(time.Time{})
}

// watch runs while a long command runs: the connection's goroutine is
// not reading, so the watcher may block in a Peek. EOF or a reset means
// the client is gone: the running command is cancelled. Data (a
// pipelined request) means it is alive, and the watch ends; so does the
// past deadline endWatch sets.
//
// A connection in the poller loop (serveloop.go) holds its socket's
// reader while the command runs: its watcher waits on a handle of its
// own, wc, and peeks rather than reads, so a pipelined request stays for
// the loop.
func (c *conn) watch(done chan struct{}, wc net.Conn) {
	defer close(done)
	var err error
	if wc != nil {
		defer wc.Close()
		err = c.src.lc.peek(wc)
	} else {
		_, err = c.r.Peek(1)
	}
	if err == nil {
		return
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return // endWatch stopped us
	}
	c.goneOnce.Do(func() { close(c.gone) })
	if op := c.op.Load(); op != nil && !lookupCommand(op.name).outlivesClient {
		// Index builds are server work and go on, as in mongod.
		op.disconnected.Store(true)
		op.cancel()
		c.s.log.Info("interrupting an operation: its client disconnected", mongolog.KeyComponent, "COMMAND",
			mongolog.KeyID, mongolog.IDClientGone, mongolog.KeyCtx, "conn"+itoa(c.id), "op", op.name)
	}
}

// runWatchdog starts a watcher for each command running longer than
// disconnectCheckDelay, until the server closes. With no command running
// for watchdogIdleTicks periods it sleeps until one begins.
func (s *Server) runWatchdog() {
	defer s.wg.Done()
	period := disconnectCheckDelay / 2
	t := time.NewTicker(period)
	defer t.Stop()
	idle := 0
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		if s.sweepCommands() {
			idle = 0
			continue
		}
		if idle++; idle < watchdogIdleTicks {
			continue
		}
		// A command stores its start, then reads watchIdle; the
		// watchdog raises watchIdle, then reads the starts: one of the
		// two sees the other.
		s.watchIdle.Store(true)
		if s.sweepCommands() {
			s.watchIdle.Store(false)
			idle = 0
			continue
		}
		t.Stop()
		select {
		case <-s.stop:
			return
		case <-s.watchWake:
		}
		idle = 0
		t.Reset(period)
	}
}

// wakeWatchdog wakes a sleeping watchdog.
func (s *Server) wakeWatchdog() {
	if s.watchIdle.CompareAndSwap(true, false) {
		select {
		case s.watchWake <- struct{}{}:
		default:
		}
	}
}

// sweepCommands starts a watcher for each command that has run for
// disconnectCheckDelay, and reports whether any command is running.
func (s *Server) sweepCommands() (busy bool) {
	now := s.sinceStart(time.Now())
	r := s.ops()
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		st := c.cmdStart.Load()
		if st == 0 {
			continue
		}
		busy = true
		if st == watching || now-st < int64(disconnectCheckDelay) {
			continue
		}
		c.watchMu.Lock()
		if c.cmdStart.CompareAndSwap(st, watching) {
			var wc net.Conn
			if lc := c.src.lc; lc != nil {
				var err error
				if wc, err = lc.watchConn(); err != nil {
					s.log.Debug("cannot watch the connection for a disconnect", "conn", c.id, "err", err)
					c.watchMu.Unlock()
					continue
				}
			}
			done := make(chan struct{})
			c.watchDone, c.watchNC = done, wc
			go c.watch(done, wc)
		}
		c.watchMu.Unlock()
	}
	return busy
}
