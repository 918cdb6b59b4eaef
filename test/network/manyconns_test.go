package network

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestThousandConnections: 1,000 connections open at once, each pinging
// for five seconds, against `lode serve` with its default limits: no
// connection is refused and no ping fails. (The issue's own run held
// 1,000 connections for 60 s; five keep the test short.)
func TestThousandConnections(t *testing.T) {
	acceptanceOnly(t)
	_, addr := startLimited(t, 0)
	const n = 1000
	conns := make([]*pinger, 0, n)
	defer func() {
		for _, p := range conns {
			p.nc.Close()
		}
	}()
	for i := 0; i < n; i++ {
		p, err := dial(addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, p)
	}
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	end := time.Now().Add(5 * time.Second)
	for _, p := range conns {
		wg.Add(1)
		go func(p *pinger) {
			defer wg.Done()
			for time.Now().Before(end) {
				if err := p.ping(5 * time.Second); err != nil {
					failed.Add(1)
					return
				}
				ok.Add(1)
				time.Sleep(50 * time.Millisecond)
			}
		}(p)
	}
	wg.Wait()
	if failed.Load() != 0 || ok.Load() < n {
		t.Fatalf("%d pings failed, %d succeeded over %d connections", failed.Load(), ok.Load(), n)
	}
	t.Logf("%d pings over %d connections, none failed", ok.Load(), n)
}
