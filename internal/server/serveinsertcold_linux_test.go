package server

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkServeInsertCold is BenchmarkServeInsert's insert with the
// processor's caches emptied before each one, as one j:true client over
// a socket finds them: between two of its inserts come the round trip to
// the client, the client's own work and the waits for the disk. Before
// each insert the benchmark reads evictMiB MiB of memory, a line at a
// time and its pages in a scattered order (the translation caches too);
// cpu-µs/op is the thread's CPU time inside serveOne alone, so the
// eviction's own cost is left out; median-cpu-µs/op is the median
// insert's, which moves less with the machine's other work. 0 MiB is the
// warm figure.
func BenchmarkServeInsertCold(b *testing.B) {
	evict := make([]byte, 32<<20)
	for i := range evict {
		evict[i] = byte(i)
	}
	for _, mib := range []int{0, 4, 16, 32} {
		b.Run(fmt.Sprintf("evict=%dMiB", mib), func(b *testing.B) {
			s, eng := newBenchServer(b)
			tc := newInsertConn(b)
			// The thread's CPU clock must be the one serveOne runs on.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			conn, log := benchConn(b, s, tc, func() bool { return tc.written > 0 })
			var cpu []time.Duration
			for b.Loop() {
				evictCaches(evict[:mib<<20])
				t0 := threadCPU(b)
				conn.serveOne(log, 0)
				cpu = append(cpu, threadCPU(b)-t0)
			}
			var sum time.Duration
			for _, d := range cpu {
				sum += d
			}
			slices.Sort(cpu)
			b.ReportMetric(float64(sum.Nanoseconds())/1e3/float64(len(cpu)), "cpu-µs/op")
			b.ReportMetric(float64(cpu[len(cpu)/2].Nanoseconds())/1e3, "median-cpu-µs/op")
			b.StopTimer()
			checkInserts(b, eng, tc)
		})
	}
}

// evictSink keeps evictCaches' reads from being optimized away.
var evictSink byte

// evictCaches reads one byte of every 64-byte line of mem, whole 4 KiB
// pages in a scattered order.
func evictCaches(mem []byte) {
	pages := len(mem) / 4096
	var sum byte
	for i := range pages {
		p := (i * 2654435761) % pages // a multiplier coprime to any power of two
		for off := p * 4096; off < (p+1)*4096; off += 64 {
			sum += mem[off]
		}
	}
	evictSink += sum
}

// threadCPU is the calling thread's CPU time.
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}
