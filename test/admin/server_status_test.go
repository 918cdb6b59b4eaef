//go:build linux

// Linux only: these tests compare serverStatus with /proc and with the
// process's open-file limit.

package admin_test

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/test/testenv"
)

// TestServerStatusProcessFigures: mem.resident and mem.virtual are the
// process's RSS and virtual size in MiB (the embedded server runs in this
// process, so /proc/self/statm is the reference), and connections.available
// is derived from the open-files limit: current + available = 80% of the
// soft RLIMIT_NOFILE, as mongod computes its supported maximum.
func TestServerStatusProcessFigures(t *testing.T) {
	// Not parallel: compares mem.resident with this process's RSS, which
	// parallel tests would move.
	if runtime.GOOS != "linux" {
		testenv.Skip(t, testenv.GroupProc, "reads /proc/self/statm")
	}
	db, _ := testenv.Open(t)
	ss := testenv.ServerStatus(t, db.Client())
	res := int64(ss.Lookup("mem", "resident").AsInt64())
	virt := int64(ss.Lookup("mem", "virtual").AsInt64())
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	vpages, _ := strconv.ParseInt(f[0], 10, 64)
	wantRes := pages * int64(os.Getpagesize()) >> 20
	wantVirt := vpages * int64(os.Getpagesize()) >> 20
	if res <= 0 || res < wantRes/2 || res > wantRes*2 {
		t.Errorf("mem.resident = %d MiB, /proc/self/statm RSS = %d MiB", res, wantRes)
	}
	// The Go runtime reserves far more address space than it uses, so the
	// virtual size is well above the resident size (heap Sys would not be).
	if virt < res || virt < wantVirt/2 || virt > wantVirt*2 {
		t.Errorf("mem.virtual = %d MiB, /proc/self/statm size = %d MiB (resident %d)", virt, wantVirt, res)
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	cur := ss.Lookup("connections", "current").AsInt64()
	avail := ss.Lookup("connections", "available").AsInt64()
	if want := int64(rl.Cur) * 8 / 10; want < 1000000 && cur+avail != want {
		t.Errorf("connections current %d + available %d != 80%% of RLIMIT_NOFILE %d", cur, avail, rl.Cur)
	}
}

// TestServerStatusStorageMetrics: serverStatus.lode.storage reports
// Pebble's figures; a flush shows in flushes and leaves level 0 a file.
func TestServerStatusStorageMetrics(t *testing.T) {
	t.Parallel()
	db, mdb := testenv.Open(t)
	coll := mdb.Collection("m")
	docs := make([]any, 0, 500)
	for i := 0; i < 500; i++ {
		docs = append(docs, map[string]any{"_id": i, "pad": strings.Repeat("x", 200)})
	}
	if _, err := coll.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	before := testenv.ServerStatus(t, db.Client()).Lookup("lode", "storage").Document()
	if err := db.Client().Database("admin").RunCommand(t.Context(), bson.D{{Key: "fsync", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	after := testenv.ServerStatus(t, db.Client()).Lookup("lode", "storage").Document()
	for _, f := range []string{"flushes", "flushesInProgress", "compactions", "compactionsInProgress", "compactionDebtBytes",
		"l0Files", "l0Sublevels", "readAmplification", "memtableBytes", "memtables", "blockCacheBytes",
		"blockCacheHits", "blockCacheMisses", "openTables", "openTablesMax", "tableCacheHits", "tableCacheMisses",
		"writeStalls", "writeStallMillis", "walBytes"} {
		if v, err := after.LookupErr(f); err != nil || !v.IsNumber() {
			t.Errorf("lode.storage.%s missing or not a number: %v", f, after)
		}
	}
	if b, a := before.Lookup("flushes").AsInt64(), after.Lookup("flushes").AsInt64(); a <= b {
		t.Errorf("flushes %d -> %d across a flush", b, a)
	}
	if n := after.Lookup("l0Files").AsInt64() + after.Lookup("compactions").AsInt64(); n < 1 {
		t.Errorf("after a flush neither an L0 file nor a compaction: %v", after)
	}
	if after.Lookup("memtables").AsInt64() < 1 || after.Lookup("memtableBytes").AsInt64() <= 0 {
		t.Errorf("no memtable reported: %v", after)
	}
	// The flushed table is read through the table cache.
	if err := coll.FindOne(t.Context(), bson.D{{Key: "_id", Value: 250}}).Err(); err != nil {
		t.Fatal(err)
	}
	read := testenv.ServerStatus(t, db.Client()).Lookup("lode", "storage").Document()
	if n := read.Lookup("openTables").AsInt64(); n < 1 {
		t.Errorf("openTables %d after reading a flushed table: %v", n, read)
	}
	if n := read.Lookup("tableCacheHits").AsInt64() + read.Lookup("tableCacheMisses").AsInt64(); n < 1 {
		t.Errorf("no table cache lookup after reading a flushed table: %v", read)
	}
	// The table cache is 15% of the open-file limit (connections may
	// take 80%, the logs and spills the rest), at least 256, at most
	// 32,768.
	if runtime.GOOS == "linux" {
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			t.Fatal(err)
		}
		want := min(max(int64(rl.Cur)*15/100, 256), 32768)
		if got := read.Lookup("openTablesMax").AsInt64(); got != want {
			t.Errorf("openTablesMax %d with an open-file limit of %d, want %d", got, rl.Cur, want)
		}
	}
}

// TestFsyncCommand: {fsync: 1} on admin flushes and answers mongod's
// {numFiles: 1, ok: 1}; lock: true is refused with NotImplemented (238),
// and fsync on another database is Unauthorized (13) as in mongod.
func TestFsyncCommand(t *testing.T) {
	t.Parallel()
	db, _ := testenv.Open(t)
	admin := db.Client().Database("admin")
	before := testenv.ServerStatus(t, db.Client()).Lookup("lode", "storage", "flushes").AsInt64()
	var r bson.Raw
	if err := admin.RunCommand(t.Context(), bson.D{{Key: "fsync", Value: 1}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if n, ok := r.Lookup("numFiles").AsInt64OK(); !ok || n != 1 {
		t.Fatalf("fsync reply %v: want numFiles: 1", r)
	}
	if after := testenv.ServerStatus(t, db.Client()).Lookup("lode", "storage", "flushes").AsInt64(); after <= before {
		t.Fatalf("flushes %d -> %d: fsync did not flush", before, after)
	}
	for _, c := range []struct {
		db   string
		cmd  bson.D
		code int32
	}{
		{"admin", bson.D{{Key: "fsync", Value: 1}, {Key: "lock", Value: true}}, 238},
		{"test", bson.D{{Key: "fsync", Value: 1}}, 13},
		{"admin", bson.D{{Key: "fsync", Value: 1}, {Key: "bogus", Value: 1}}, 40415},
	} {
		var ce mongo.CommandError
		err := db.Client().Database(c.db).RunCommand(t.Context(), c.cmd).Err()
		if !errors.As(err, &ce) || ce.Code != c.code {
			t.Errorf("%v on %s: got %v, want code %d", c.cmd, c.db, err, c.code)
		}
	}
}
