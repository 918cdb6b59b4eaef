package storage

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// putRecords writes doc(rid) as records rids of collID in one commit.
func putRecords(t *testing.T, db *DB, collID uint64, rids []RecordID, doc func(RecordID) string) {
	t.Helper()
	b := db.NewBatch()
	for _, rid := range rids {
		if err := SetRecord(b, collID, rid, []byte(doc(rid))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// fetchAll reads rids through a cursor on r with FetchAscending and
// returns the documents found by record id, and the cursor's cache.
func fetchAll(t *testing.T, r Reader, collID uint64, rids []RecordID) (map[RecordID]string, *recordCache) {
	t.Helper()
	var c RecordCursor
	if err := c.Open(r, collID, false); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := map[RecordID]string{}
	n, err := c.FetchAscending(len(rids), func(i int) RecordID { return rids[i] }, func(i int, doc []byte, found bool) {
		if found {
			got[rids[i]] = string(doc)
		}
	})
	if err != nil || n != len(rids) {
		t.Fatalf("FetchAscending: %d, %v", n, err)
	}
	return got, c.cache
}

func seq(lo, hi RecordID) []RecordID {
	var out []RecordID
	for r := lo; r <= hi; r++ {
		out = append(out, r)
	}
	return out
}

func wantDocs(t *testing.T, what string, got map[RecordID]string, want map[RecordID]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d documents, want %d", what, len(got), len(want))
	}
	for rid, w := range want {
		if got[rid] != w {
			t.Fatalf("%s: record %d = %q, want %q", what, rid, got[rid], w)
		}
	}
}

// TestRecordCacheSnapshotVersions: a snapshot reads through the record
// cache exactly what Pebble holds for it, before and after writes, and a
// snapshot taken before a write never sees it through a cache filled
// after it.
func TestRecordCacheSnapshotVersions(t *testing.T) {
	db, err := Open(t.TempDir(), Options{RecordCacheQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v1 := func(rid RecordID) string { return fmt.Sprint("v1-", rid) }
	putRecords(t, db, 7, seq(1, 50), v1)
	putRecords(t, db, 8, seq(1, 5), v1)
	want1 := map[RecordID]string{}
	for _, r := range seq(1, 50) {
		want1[r] = v1(r)
	}
	probe := append(seq(1, 50), 60, 70) // 60, 70: no such records

	a := db.NewSnapshot()
	defer a.Close()
	got, ca := fetchAll(t, a.Reader(), 7, probe)
	wantDocs(t, "snapshot a", got, want1)
	if ca == nil || ca.n != 50 {
		t.Fatalf("the first read must fill the cache: %v", ca)
	}
	b := db.NewSnapshot()
	got, cb := fetchAll(t, b.Reader(), 7, probe)
	b.Close()
	wantDocs(t, "snapshot b (cached)", got, want1)
	if cb != ca {
		t.Fatal("a snapshot of the same version must share the cache")
	}

	// A write to another collection leaves the cache.
	putRecords(t, db, 8, seq(1, 5), func(rid RecordID) string { return "other" })
	if _, c := fetchAll(t, a.Reader(), 7, probe); c != ca {
		t.Fatal("a write to collection 8 dropped collection 7's cache")
	}

	// A cursor opened before the write keeps its version.
	var held RecordCursor
	if err := held.Open(a.Reader(), 7, false); err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	// Update 5, delete 6, insert 60.
	wb := db.NewBatch()
	SetRecord(wb, 7, 5, []byte("v2-5"))
	DeleteRecord(wb, 7, 6)
	SetRecord(wb, 7, 60, []byte("v2-60"))
	if _, err := db.Commit(wb); err != nil {
		t.Fatal(err)
	}
	want2 := map[RecordID]string{}
	for r, d := range want1 {
		want2[r] = d
	}
	want2[5], want2[60] = "v2-5", "v2-60"
	delete(want2, 6)

	c := db.NewSnapshot()
	defer c.Close()
	for i := 0; i < 2; i++ { // fill, then hit
		got, cc := fetchAll(t, c.Reader(), 7, probe)
		wantDocs(t, "snapshot c", got, want2)
		if cc == nil || cc == ca {
			t.Fatalf("a snapshot after the write must use a new cache: %p", cc)
		}
	}
	// Snapshot a, taken before the write, reads Pebble: no cache serves
	// its version any more.
	got, c2 := fetchAll(t, a.Reader(), 7, probe)
	wantDocs(t, "snapshot a after the write", got, want1)
	if c2 != nil {
		t.Fatal("a snapshot older than the collection's version must not use a cache")
	}
	got = map[RecordID]string{}
	held.FetchAscending(len(probe), func(i int) RecordID { return probe[i] }, func(i int, doc []byte, found bool) {
		if found {
			got[probe[i]] = string(doc)
		}
	})
	wantDocs(t, "cursor opened before the write", got, want1)

	// Dropping the records drops the cache.
	db2 := db.NewBatch()
	DeleteRecords(db2, 7)
	if _, err := db.Commit(db2); err != nil {
		t.Fatal(err)
	}
	d := db.NewSnapshot()
	defer d.Close()
	got, _ = fetchAll(t, d.Reader(), 7, probe)
	wantDocs(t, "after DeleteRecords", got, nil)
	got, _ = fetchAll(t, c.Reader(), 7, probe)
	wantDocs(t, "snapshot c after DeleteRecords", got, want2)
}

// TestRecordCacheWriteInFlight: a snapshot taken while a record write is
// under way does not know which writes it sees and never uses the cache;
// nor does any reader while the collection is not quiet yet.
func TestRecordCacheWriteInFlight(t *testing.T) {
	db, err := Open(t.TempDir(), Options{RecordCacheQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	putRecords(t, db, 7, seq(1, 10), func(rid RecordID) string { return "d" })
	db.records.begin([]uint64{9})
	s := db.NewSnapshot()
	db.records.end([]uint64{9})
	if _, c := fetchAll(t, s.Reader(), 7, seq(1, 10)); c != nil {
		t.Fatal("a snapshot taken during a record write used the cache")
	}
	s.Close()
	if _, c := fetchAll(t, db.Reader(), 7, seq(1, 10)); c != nil {
		t.Fatal("the latest state (not a snapshot) used the cache")
	}

	db.records.quiet = int64(time.Hour)
	s = db.NewSnapshot()
	defer s.Close()
	if _, c := fetchAll(t, s.Reader(), 7, seq(1, 10)); c != nil {
		t.Fatal("a collection written within the quiet period was cached")
	}
}

// TestRecordCacheBudget: the caches stop filling at their budget, reads
// past it go to Pebble, and a write returns its cache's bytes.
func TestRecordCacheBudget(t *testing.T) {
	db, err := Open(t.TempDir(), Options{CacheSize: 8 << 20, RecordCacheQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Room for the first chunks (4 KiB, 8 KiB: 122 documents) and the
	// blocks and directory of 121 records (40 + 81 documents of 100 bytes):
	// the third chunk does not fit.
	db.records.budget = (4+8)<<10 + 4*recordBlockCost + recordDirCost
	doc := func(rid RecordID) string { return fmt.Sprintf("%0100d", rid) }
	rids := seq(1, 300)
	putRecords(t, db, 7, rids, doc)
	want := map[RecordID]string{}
	for _, r := range rids {
		want[r] = doc(r)
	}
	s := db.NewSnapshot()
	for i := 0; i < 2; i++ {
		got, c := fetchAll(t, s.Reader(), 7, rids)
		wantDocs(t, "over budget", got, want)
		if c == nil || c.n != 121 {
			t.Fatalf("cache holds %d records, want 121", c.n)
		}
	}
	s.Close()
	if u := db.records.used.Load(); u != db.records.budget {
		t.Fatalf("used %d, want %d", u, db.records.budget)
	}
	putRecords(t, db, 7, seq(1, 1), doc)
	if u := db.records.used.Load(); u != 0 {
		t.Fatalf("after the write used %d, want 0", u)
	}
}

// TestRecordCacheConcurrentWrites: readers that take snapshots while a
// writer keeps rewriting the records read through FetchAscending exactly
// what a point read of the same snapshot returns.
func TestRecordCacheConcurrentWrites(t *testing.T) {
	db, err := Open(t.TempDir(), Options{RecordCacheQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rids := seq(1, 64)
	putRecords(t, db, 7, rids, func(rid RecordID) string { return "0" })
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for gen := 1; gen <= 400; gen++ {
			b := db.NewBatch()
			for _, r := range rids[gen%4*16 : gen%4*16+16] {
				SetRecord(b, 7, r, []byte(fmt.Sprint(gen)))
			}
			if _, err := db.Commit(b); err != nil {
				t.Error(err)
				return
			}
			if gen%8 == 0 {
				time.Sleep(time.Millisecond) // let readers meet quiet moments
			}
		}
	}()
	errs := make(chan error, 2)
	var cached atomic.Int64
	for w := 0; w < 2; w++ {
		go func() {
			for last := false; !last; {
				select {
				case <-wrote:
					last = true // one more round, with no writer
				default:
				}
				s := db.NewSnapshot()
				for pass := 0; pass < 2; pass++ {
					got, c := fetchAll(t, s.Reader(), 7, rids)
					if c != nil {
						cached.Add(1)
					}
					for _, r := range rids {
						want, _, err := GetRecord(s.Reader(), 7, r, nil)
						if err != nil || got[r] != string(want) {
							s.Close()
							errs <- fmt.Errorf("record %d: cursor %q, point read %q (%v)", r, got[r], want, err)
							return
						}
					}
				}
				s.Close()
			}
			errs <- nil
		}()
	}
	for w := 0; w < 2; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	<-wrote
	if cached.Load() == 0 {
		t.Fatal("no read used the cache")
	}
	t.Logf("%d reads used the cache", cached.Load())
}

// TestRecordCacheSparseIDs: records far apart (other directories and
// blocks, the edges of both) are cached and served as stored.
func TestRecordCacheSparseIDs(t *testing.T) {
	db, err := Open(t.TempDir(), Options{RecordCacheQuiet: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rids := []RecordID{1, 31, 32, 4095, 4096, 4097, 1 << 40, 1<<40 + 33, 1<<63 + 1, 1<<64 - 1}
	doc := func(rid RecordID) string { return fmt.Sprint("d", rid) }
	putRecords(t, db, 7, rids, doc)
	want := map[RecordID]string{}
	for _, r := range rids {
		want[r] = doc(r)
	}
	probe := []RecordID{0, 1, 2, 30, 31, 32, 33, 4095, 4096, 4097, 1 << 40, 1<<40 + 33, 1<<63 + 1, 1<<64 - 1}
	s := db.NewSnapshot()
	defer s.Close()
	for pass := 0; pass < 2; pass++ {
		got, c := fetchAll(t, s.Reader(), 7, probe)
		wantDocs(t, fmt.Sprint("pass ", pass), got, want)
		if c == nil || c.n != len(rids) {
			t.Fatalf("pass %d: cache %v", pass, c)
		}
	}
}
