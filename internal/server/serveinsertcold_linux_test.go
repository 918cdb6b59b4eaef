package server

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"golang.org/x/sys/unix"

	"github.com/lodedb/lode/internal/engine"
	"github.com/lodedb/lode/internal/storage"
	"github.com/lodedb/lode/internal/wire"
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

// BenchmarkServeInsertWarmedBy splits BenchmarkServeInsertCold's cold
// insert (32 MiB read first) by what is warm when it runs: after the
// eviction, one untimed step on a second server of the same process
// fetches again the code and the shared state that step runs, while the
// timed server's own data (its memtable, collection, session) stays
// cold. The steps, in the order run:
//
//   - cold: none;
//   - ping: a driver's ping (the request path every command shares);
//   - storage: four small records in one storage batch, committed
//     (Lode's storage layer and Pebble's commit);
//   - engine: the same insert through Engine.Insert alone (the engine's
//     and Pebble's code);
//   - plain: an insert without a session through serveOne (all but the
//     retryable write's code);
//   - insert: the same retryable insert through serveOne (all the code);
//   - same: the timed server's own previous insert (code and data, the
//     warm figure).
func BenchmarkServeInsertWarmedBy(b *testing.B) {
	evict := make([]byte, 32<<20)
	for i := range evict {
		evict[i] = byte(i)
	}
	for _, by := range []string{"cold", "ping", "storage", "engine", "plain", "insert", "same"} {
		b.Run(by, func(b *testing.B) {
			s, eng := newBenchServer(b)
			s2, eng2 := newBenchServer(b)
			tc, tc2 := newInsertConn(b), newInsertConn(b)
			plain := newEventInsertConn(b, false)
			ping := &memConn{msg: wire.AppendMsg(nil, 1, 0, 0, driverPing())}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			conn, log := benchConn(b, s, tc, func() bool { return tc.written > 0 })
			conn2, _ := benchConn(b, s2, tc2, func() bool { return tc2.written > 0 })
			connPing, _ := benchConn(b, s2, ping, func() bool { return ping.written > 0 })
			connPlain, _ := benchConn(b, s2, plain, func() bool { return plain.written > 0 })
			var id bson.ObjectID
			nextID := func() {
				id[11]++
				if id[11] == 0 {
					id[10]++
				}
			}
			var cpu []time.Duration
			for b.Loop() {
				evictCaches(evict)
				switch by {
				case "ping":
					connPing.serveOne(log, 0)
				case "storage":
					nextID()
					sb := eng2.Storage().NewBatch()
					for k := range 4 {
						key := append(id[:], byte(k))
						if err := storage.SetSession(sb, key, warmRecord); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := eng2.Storage().Commit(sb); err != nil {
						b.Fatal(err)
					}
					sb.Close()
				case "engine":
					nextID()
					doc := bsoncore.NewDocumentBuilder().AppendObjectID("_id", id).AppendString("path", "/a/b/c").
						AppendString("host", "web-17").AppendInt64("bytes", 5120).Build()
					if _, err := eng2.Insert(context.Background(), "warm", "events", []bsoncore.Document{doc}, engine.WriteOptions{}); err != nil {
						b.Fatal(err)
					}
				case "plain":
					connPlain.serveOne(log, 0)
				case "insert":
					conn2.serveOne(log, 0)
				case "same":
					conn.serveOne(log, 0)
				}
				t0 := threadCPU(b)
				conn.serveOne(log, 0)
				cpu = append(cpu, threadCPU(b)-t0)
			}
			slices.Sort(cpu)
			b.ReportMetric(float64(cpu[len(cpu)/2].Nanoseconds())/1e3, "median-cpu-µs/op")
			b.StopTimer()
			checkInserts(b, eng, tc)
		})
	}
}

// warmRecord is the value of the storage step's records: about an
// event document's size.
var warmRecord = bytes.Repeat([]byte{'r'}, 80)
