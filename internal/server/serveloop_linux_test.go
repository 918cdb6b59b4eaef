package server

import (
	"testing"
	"time"
)

// In the poller loop a connection that answers one request at a time
// reads its socket once per request: the read after a reply that would
// only find the socket empty is not made. (Outside the loop every
// request costs two reads, one of them EAGAIN.)
func TestServeLoopOneReadPerRequest(t *testing.T) {
	s, addr := listenServer(t, Config{})
	p := dialPinger(t, addr)
	if _, err := p.ping(); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := 0; i < n; i++ {
		if _, err := p.ping(); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			time.Sleep(time.Millisecond) // let the loop wait, as between a client's requests
		}
	}
	// The connection's goroutine writes its count: read it once the
	// connection has left the registry, under the registry's lock.
	r := s.ops()
	r.mu.Lock()
	var c *conn
	for o := range r.conns {
		c = o
	}
	r.mu.Unlock()
	if c == nil || c.src.lc == nil {
		t.Fatalf("the connection is not in the poller loop: %+v", c)
	}
	p.nc.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		r.mu.Lock()
		_, open := r.conns[c]
		r.mu.Unlock()
		if !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection did not close")
		}
	}
	// n pings, the first one, and the read that finds the close.
	if reads := c.src.loopReads; reads > n+n/10 {
		t.Fatalf("%d reads for %d requests, want about one each", reads, n)
	}
}
