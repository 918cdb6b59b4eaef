package network

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/wire"
	"github.com/lodedb/lode/test/testenv"
)

// procStat returns the CPU seconds and RSS bytes of process pid.
func procStat(t *testing.T, pid int) (cpu float64, rss int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return (ut + st) / 100, pages * int64(os.Getpagesize())
}

// TestBigQueriesAbandoned is issue 15's burst: 16 clients each send an
// 11 MB find {arr: {$in: [0 .. 999999]}} and disconnect after 50 ms,
// against a server with a 256 MiB memory budget. The server must finish or
// drop that work soon after (within a second on a quiet machine), keep its
// RSS under the budget, keep serving, and give the memory back to the OS
// afterwards.
func TestBigQueriesAbandoned(t *testing.T) {
	acceptanceOnly(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		testenv.Skip(t, testenv.GroupProc, "needs /proc to read the server's CPU time and RSS")
	}
	const budget = 256 << 20
	cmd, addr := startLimited(t, 0, "--memory-budget-mb", "256")
	ab := bsoncore.NewArrayBuilder()
	for i := 0; i < 1_000_000; i++ {
		ab.AppendInt32(int32(i))
	}
	find := bsoncore.NewDocumentBuilder().AppendString("find", "big").
		AppendDocument("filter", bsoncore.NewDocumentBuilder().AppendDocument("arr", bsoncore.NewDocumentBuilder().AppendArray("$in", ab.Build()).Build()).Build()).
		AppendString("$db", "test").Build()
	msg := wire.AppendMsg(nil, 1, 0, 0, find)
	control, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer control.nc.Close()
	if err := control.ping(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = nc.Write(msg)
			time.Sleep(50 * time.Millisecond)
			nc.Close()
		}()
	}
	// Sample the RSS while the burst lasts.
	var peak int64
	sampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			_, rss := procStat(t, pid)
			peak = max(peak, rss)
			select {
			case <-sampling:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	cpuBurst, _ := procStat(t, pid)
	wg.Wait()
	gone := time.Now()
	// Then the work for the departed clients ends: big requests run as
	// many at a time as there are cores, and those whose client left while
	// they waited are dropped unparsed. On a quiet machine the server is
	// idle within a second; on a loaded one (CI runs test packages side
	// by side on two cores) it may take a few, so the test waits for a
	// quiet second (at most 0.2 s of CPU) for up to ten, and bounds the
	// CPU the whole burst cost: serving all sixteen queries to the end
	// costs about 1.3 s, work that never stops costs more than 4.
	cpuPrev := cpuBurst
	for {
		time.Sleep(time.Second)
		cpu, _ := procStat(t, pid)
		if cpu-cpuPrev <= 0.2 {
			t.Logf("quiet %v after the clients left; the burst cost %.2f s of CPU", time.Since(gone).Round(time.Second), cpu-cpuBurst)
			if cpu-cpuBurst > 4 {
				t.Fatalf("the burst cost %.2f s of the server's CPU (serving every query costs about 1.3 s)", cpu-cpuBurst)
			}
			break
		}
		if time.Since(gone) > 10*time.Second {
			t.Fatalf("the server still used %.2f s of CPU per second 10 s after its clients left", cpu-cpuPrev)
		}
		cpuPrev = cpu
	}
	close(sampling)
	<-sampled
	t.Logf("RSS peak %d MB (budget %d MB)", peak>>20, budget>>20)
	if peak >= budget {
		t.Fatalf("RSS peaked at %d MB, over the %d MB budget", peak>>20, budget>>20)
	}
	if err := control.ping(2 * time.Second); err != nil {
		t.Fatalf("control ping after the burst: %v", err)
	}
	for {
		_, rss := procStat(t, pid)
		if rss < 300<<20 {
			t.Logf("RSS peak %d MB (budget %d MB), %d MB %v after the clients left", peak>>20, budget>>20, rss>>20, time.Since(gone).Round(time.Second))
			return
		}
		if time.Since(gone) > 30*time.Second {
			t.Fatalf("RSS still %d MB 30 s after the burst", rss>>20)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
