package oplog

import (
	"sync"
	"sync/atomic"
	"time"
)

// TS is a timestamp as mongod's BSON Timestamp: seconds in the high 32
// bits, an increment in the low 32.
type TS uint64

// MakeTS builds a timestamp from seconds and increment.
func MakeTS(sec, inc uint32) TS { return TS(uint64(sec)<<32 | uint64(inc)) }

// Sec is the timestamp's seconds.
func (t TS) Sec() uint32 { return uint32(t >> 32) }

// Inc is the timestamp's increment.
func (t TS) Inc() uint32 { return uint32(t) }

// Clock hands out strictly increasing timestamps: the current second,
// and an increment that restarts at 1 when the second changes. After a
// restart it continues above the newest timestamp in the log, even if the
// wall clock went back.
type Clock struct {
	mu   sync.Mutex
	last TS
	// pub mirrors last, stored under mu whenever last changes, so that
	// Last, which every reply on a replica set reads, takes no lock.
	pub atomic.Uint64
}

// setLast moves last to t. The caller holds c.mu.
func (c *Clock) setLast(t TS) {
	c.last = t
	c.pub.Store(uint64(t))
}

// reserve returns the first of n consecutive fresh timestamps. The
// caller holds c.mu.
func (c *Clock) reserveLocked(n int) TS {
	sec := uint32(time.Now().Unix())
	if sec > c.last.Sec() && uint64(n) < 1<<31 {
		first := MakeTS(sec, 1)
		c.setLast(first + TS(n-1))
		return first
	}
	first := c.last + 1
	if uint64(first.Inc())+uint64(n) >= 1<<32 { // the increment would wrap
		first = MakeTS(c.last.Sec()+1, 1)
	}
	c.setLast(first + TS(n-1))
	return first
}

// Now returns one fresh timestamp.
func (c *Clock) Now() TS {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reserveLocked(1)
}

// Last returns the newest timestamp handed out (a fresh one if none was).
func (c *Clock) Last() TS {
	if t := c.pub.Load(); t != 0 {
		return TS(t)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == 0 {
		return c.reserveLocked(1)
	}
	return c.last
}

// advance moves the clock to at least t (at open, from the log's newest
// entry).
func (c *Clock) advance(t TS) {
	c.mu.Lock()
	if t > c.last {
		c.setLast(t)
	}
	c.mu.Unlock()
}
