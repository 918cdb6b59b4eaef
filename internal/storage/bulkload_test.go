package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// loadKeys adds n index entries of index 7 with keystrings in a shuffled
// order and returns them sorted as Pebble must hold them.
func loadKeys(t *testing.T, l *SortedLoad, n int, pad int) [][]byte {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	want := make([][]byte, 0, n)
	for _, i := range r.Perm(n) {
		// Compound-key-like keystrings: a repeated first field, so the
		// sixteen abbreviated bytes often tie and the full compare decides.
		ks := fmt.Appendf(nil, "cat%03d|%0*d", i%7, pad, i)
		k := appendIndexKey(nil, 7, ks, uint64(i))
		if err := l.Add(k, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	sortKeys(want)
	return want
}

func sortKeys(ks [][]byte) { slices.SortFunc(ks, bytes.Compare) }

// finishAndCheck finishes load l and checks that index 7 holds the keys
// of want, in any order, and nothing else.
func finishAndCheck(t *testing.T, db *DB, l *SortedLoad, want [][]byte) {
	t.Helper()
	sortKeys(want)
	if _, err := l.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, want)
}

func checkIndex(t *testing.T, db *DB, want [][]byte) {
	t.Helper()
	keys, values := indexEntries(t, db, 7)
	for i, k := range keys {
		if i >= len(want) || !bytes.Equal(k, want[i]) {
			t.Fatalf("entry %d is %q, want %q", i, k, want[min(i, len(want)-1)])
		}
		_, rid := splitIndexKey(k)
		if len(values[i]) != 1 || values[i][0] != byte(rid) {
			t.Fatalf("entry %d has value %v", i, values[i])
		}
	}
	if len(keys) != len(want) {
		t.Fatalf("%d entries, want %d", len(keys), len(want))
	}
}

// indexEntries returns the keys and values of index id's entries, in
// order.
func indexEntries(t *testing.T, db *DB, id uint64) (keys, values [][]byte) {
	t.Helper()
	lo, hi := indexRange(id)
	it, err := db.pdb.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for ok := it.SeekGE(lo); ok && bytes.Compare(it.Key(), hi) < 0; ok = it.Next() {
		keys = append(keys, slices.Clone(it.Key()))
		values = append(values, slices.Clone(it.Value()))
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return keys, values
}

func TestSortedLoad(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n, pad int
		budget int
	}{
		{"batch", 2000, 4, DefaultSortBudget},
		{"ingest", 120_000, 40, DefaultSortBudget},       // over ingestThreshold
		{"spilled runs", 60_000, 40, 512 << 10},          // about eight runs, then ingested
		{"spilled runs, small total", 3000, 4, 16 << 10}, // runs merged into sstables
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, Options{SyncInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			l := db.NewSortedLoad(indexPrefixLen, nil)
			l.SetBudget(tc.budget)
			want := loadKeys(t, l, tc.n, tc.pad)
			var done, total int64
			l.OnEmitted = func(d, tot int64) { done, total = d, tot }
			if _, err := l.Finish(context.Background()); err != nil {
				t.Fatal(err)
			}
			if done != int64(tc.n) || total != int64(tc.n) {
				t.Fatalf("progress %d/%d, want %d/%d", done, total, tc.n, tc.n)
			}
			checkIndex(t, db, want)
			if left, _ := filepath.Glob(filepath.Join(dir, "bulk-*")); len(left) != 0 {
				t.Fatalf("temporary files left: %v", left)
			}
			// The entries are ordinary keys: they survive a reopen and
			// can be removed one by one.
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			db, err = Open(dir, Options{SyncInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			checkIndex(t, db, want)
			b := db.NewBatch()
			for _, k := range want[1:] {
				b.pb.SingleDelete(k, nil)
			}
			if _, err := db.Commit(b); err != nil {
				t.Fatal(err)
			}
			checkIndex(t, db, want[:1])
		})
	}
}

func TestSortedLoadCheckRefuses(t *testing.T) {
	for _, n := range []int{500, 120_000} {
		db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		errDup := errors.New("duplicate")
		l := db.NewSortedLoad(indexPrefixLen, func(prev, cur []byte) error {
			p, _ := splitIndexKey(prev)
			c, _ := splitIndexKey(cur)
			if bytes.Equal(p, c) {
				return errDup
			}
			return nil
		})
		loadKeys(t, l, n, 40)
		// One more entry with an existing keystring and another record id.
		if err := l.Add(appendIndexKey(nil, 7, fmt.Appendf(nil, "cat%03d|%0*d", 5%7, 40, 5), uint64(n+1)), []byte{1}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Finish(context.Background()); !errors.Is(err, errDup) {
			t.Fatalf("n=%d: Finish: %v, want the check's error", n, err)
		}
		checkIndex(t, db, nil)
		db.Close()
	}
}

// TestClearIndexesAbove: entries under an id the catalog does not hold
// (a build a crash interrupted) are removed; lower ids are kept.
func TestClearIndexesAbove(t *testing.T) {
	db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	b.pb.Set(appendIndexKey(nil, 7, []byte("a"), 1), []byte{1}, nil)
	b.pb.Set(appendIndexKey(nil, 9, []byte("b"), 2), nil, nil)
	if _, err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.ClearIndexesAbove(7); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, [][]byte{appendIndexKey(nil, 7, []byte("a"), 1)})
	if _, found, _ := db.Get(appendIndexKey(nil, 9, []byte("b"), 2), nil); found {
		t.Fatal("index 9's entry survived")
	}
}

// TestSortedLoadSharedPrefix: keystrings that share a long prefix and
// repeat (a path field), some shorter than the abbreviations, sort by
// their full bytes.
func TestSortedLoadSharedPrefix(t *testing.T) {
	db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l := db.NewSortedLoad(indexPrefixLen, nil)
	r := rand.New(rand.NewPCG(3, 4))
	var want [][]byte
	for _, i := range r.Perm(150_000) {
		ks := fmt.Appendf(nil, "/site/section%02d/page%d", i%37, i%1001)
		if i%5 == 0 {
			ks = ks[:14] // "/site/section0"-like: shorter than prefix+16
		}
		k := appendIndexKey(nil, 7, ks, uint64(i))
		if err := l.Add(k, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	finishAndCheck(t, db, l, want)
}

// A load takes the entry table and arena the load before it left, and
// the DB lets them go when it closes.
func TestSortedLoadsReuseMemory(t *testing.T) {
	db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 50_000
	first := db.NewSortedLoad(indexPrefixLen, nil)
	first.SizeHint(n)
	for i := range n {
		if err := first.Add(appendIndexKey(nil, 8, fmt.Appendf(nil, "k%06d", n-i), uint64(i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := first.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	db.loadMem.mu.Lock()
	kept, chunks := len(db.loadMem.ents), len(db.loadMem.chunks)
	db.loadMem.mu.Unlock()
	if kept == 0 || chunks == 0 {
		t.Fatalf("after a load: %d entry tables and %d chunks kept, want some", kept, chunks)
	}
	second := db.NewSortedLoad(indexPrefixLen, nil)
	second.SizeHint(n)
	if cap(second.ents) < n {
		t.Fatalf("entry table of %d, want room for %d", cap(second.ents), n)
	}
	db.loadMem.mu.Lock()
	left := len(db.loadMem.ents)
	db.loadMem.mu.Unlock()
	if left != kept-1 {
		t.Fatalf("%d entry tables kept after a load took one, want %d", left, kept-1)
	}
	want := loadKeys(t, second, n, 40)
	if _, err := second.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, want)
	db.Close()
	if db.loadMem.ents != nil || db.loadMem.chunks != nil {
		t.Fatal("a closed DB keeps load memory")
	}
}

// The sort orders keys that tie on many sixteen-byte abbreviations, and
// keys that end inside one (padded with zeros beside keys that hold
// zeros there), as bytes.Compare does, on one goroutine and on two.
func TestSortedLoadOrdersTiedAndPaddedKeys(t *testing.T) {
	db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, n := range []int{5000, 70_000} {
		r := rand.New(rand.NewPCG(3, uint64(n)))
		seen := map[string]bool{}
		var want [][]byte
		l := db.NewSortedLoad(2, nil)
		for len(want) < n {
			k := []byte{7, 7}
			k = append(k, bytes.Repeat([]byte("shared prefix "), r.IntN(4))...)
			for range r.IntN(40) {
				k = append(k, []byte{0, 0, 1, 'a'}[r.IntN(4)])
			}
			if seen[string(k)] {
				continue
			}
			seen[string(k)] = true
			want = append(want, k)
			if err := l.Add(k, nil); err != nil {
				t.Fatal(err)
			}
		}
		sortKeys(want)
		l.sort()
		for i, e := range l.ents {
			if !bytes.Equal(l.key(e), want[i]) {
				t.Fatalf("n=%d: key %d is %q, want %q", n, i, l.key(e), want[i])
			}
		}
		l.Abort()
	}
}

// TestSortedLoadGrouped: entries grouped on their first field (AddHead),
// each group rising or falling with the records, are written in key order
// with their values, whether the load stays in memory (its arena copied
// into key order as it is grouped) or spills sorted runs first.
func TestSortedLoadGrouped(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		budget int
	}{
		{"batch", 3000, DefaultSortBudget},
		{"ingest", 160_000, DefaultSortBudget}, // over ingestThreshold
		{"spilled runs", 60_000, 256 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, l := openGroupedLoad(t, tc.budget)
			want := addGrouped(t, l, rand.New(rand.NewPCG(5, 6)), tc.n, 50, true, false)
			// Each run holds about a budget's worth of entries: the
			// heads' pages (50 of 16 KiB, more than this budget) must not
			// fill it alone and spill a run every few entries.
			if tc.budget < DefaultSortBudget && int64(len(l.runs)) > 4*l.bytes/int64(tc.budget)+4 {
				t.Fatalf("%d runs for %d bytes of entries in a %d-byte budget", len(l.runs), l.bytes, tc.budget)
			}
			finishAndCheck(t, db, l, want)
		})
	}
}

// openGroupedLoad opens a DB and starts an index-like load in it with the
// given sort budget.
func openGroupedLoad(t *testing.T, budget int) (*DB, *SortedLoad) {
	t.Helper()
	db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l := db.NewSortedLoad(indexPrefixLen, nil)
	l.SetBudget(budget)
	return db, l
}

// addGrouped adds n index-like entries to l, each with a head of one of
// heads values drawn by r ("h0042|") and a rising record id; after the
// head comes a time rising with the records, falling for odd heads when
// fall is set, and for every 1000th entry with long a filler larger than
// a page. It returns the keys added.
func addGrouped(t *testing.T, l *SortedLoad, r *rand.Rand, n, heads int, fall, long bool) [][]byte {
	t.Helper()
	want := make([][]byte, 0, n)
	for i := range n {
		c := r.IntN(heads)
		head := fmt.Appendf(nil, "h%04d|", c)
		ts := uint64(i)
		if fall && c%2 == 1 {
			ts = ^ts // falls as the records rise
		}
		ks := binary.BigEndian.AppendUint64(head, ts)
		if long && i%1000 == 999 {
			ks = append(ks, bytes.Repeat([]byte{'x'}, pageSize)...)
		}
		k := appendIndexKey(nil, 7, ks, uint64(i))
		if err := l.AddHead(k, []byte{byte(i)}, len(head)); err != nil {
			t.Fatal(err)
		}
		want = append(want, k)
	}
	return want
}

// TestSortedLoadHeadPages: entries added with a head go to their head's
// pages of the arena, consecutive there, while the heads are few; the
// load falls back to the arena's end (and bucketSort to looking the
// heads up) for heads beyond the bound and for entries larger than a
// page; every case sorts right, in memory and through spilled runs.
func TestSortedLoadHeadPages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      int
		heads  int
		long   bool // every 1000th entry is larger than a page
		budget int
		fall   bool // odd heads' suffixes fall
		paged  bool // every entry went to its head's page
	}{
		{"few heads", 20_000, 50, false, DefaultSortBudget, false, true},
		{"rising and falling", 20_000, 50, false, DefaultSortBudget, true, true},
		{"many heads", 20_000, 2_000, false, DefaultSortBudget, true, false},
		{"long entries", 20_000, 50, true, DefaultSortBudget, true, false},
		{"spilled runs", 60_000, 50, false, 512 << 10, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, l := openGroupedLoad(t, tc.budget)
			want := addGrouped(t, l, rand.New(rand.NewPCG(7, 8)), tc.n, tc.heads, tc.fall, tc.long)
			if len(l.runs) == 0 {
				_, _, ok := l.pages.groupsOf(len(l.ents))
				if ok != tc.paged {
					t.Fatalf("every entry paged: %v, want %v", ok, tc.paged)
				}
				if tc.paged {
					// A head's entries follow each other in the arena but
					// where a page ends.
					last := map[string]sortEntry{}
					jumps, size := map[string]int{}, map[string]int{}
					for i, e := range l.ents {
						h := string(l.key(e)[indexPrefixLen : indexPrefixLen+int(l.heads[i])])
						if p, ok := last[h]; ok && (p.chunk != e.chunk || p.off+p.klen+p.vlen != e.off) {
							jumps[h]++
						}
						last[h] = e
						size[h] += int(e.klen + e.vlen)
					}
					for h, j := range jumps {
						if j > size[h]/pageSize {
							t.Fatalf("head %q: %d jumps between its entries, in %d bytes", h, j, size[h])
						}
					}
				}
				// The sort itself orders the entries (a batch would hide
				// a wrong order: Pebble sorts its keys again).
				l.sort()
				for i := 1; i < len(l.ents); i++ {
					if bytes.Compare(l.key(l.ents[i-1]), l.key(l.ents[i])) >= 0 {
						t.Fatalf("sorted entries %d and %d out of order", i-1, i)
					}
				}
			} else if tc.budget == DefaultSortBudget {
				t.Fatal("the load spilled")
			}
			finishAndCheck(t, db, l, want)
		})
	}
}

// risingKey is the i-th key of a rising load on index 7: a keystring
// that rises with i, as a time field's does with the records.
func risingKey(i int) []byte {
	return appendIndexKey(nil, 7, fmt.Appendf(nil, "t%012d|%040d", i, 0), uint64(i))
}

// TestSortedLoadStreamsRisingKeys: a load whose keys rise is written
// into its tables as the keys come, past the ingestion threshold
// (bulkstream.go); the index holds every key once, the progress counts
// them, and nothing is left in the load's directory. A falling load, a
// load with a neighbour check and a small one are not streamed.
func TestSortedLoadStreamsRisingKeys(t *testing.T) {
	const n = 120_000 // about 9 MB of entries: over ingestThreshold
	for _, tc := range []struct {
		name    string
		falling bool
		check   bool
		n       int
		stream  bool
	}{
		{"rising", false, false, n, true},
		{"falling", true, false, n, false},
		{"with a check", false, true, n, false},
		{"small", false, false, 2000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, db := openLoadDB(t)
			var check func(prev, cur []byte) error
			if tc.check {
				check = func(prev, cur []byte) error { return nil }
			}
			l := db.NewSortedLoad(indexPrefixLen, check)
			want := make([][]byte, 0, tc.n)
			streamedAt := -1
			for j := 0; j < tc.n; j++ {
				i := j
				if tc.falling {
					i = tc.n - 1 - j
				}
				k := risingKey(i)
				if err := l.Add(k, []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
				want = append(want, k)
				if streamedAt < 0 && l.stream != nil {
					streamedAt = j
				}
			}
			if got := streamedAt >= 0; got != tc.stream {
				t.Fatalf("streamed: %v (from key %d), want %v", got, streamedAt, tc.stream)
			}
			if tc.stream && (len(l.ents) != 0 || l.bytes < ingestThreshold) {
				t.Fatalf("streaming with %d entries in the arena, %d bytes", len(l.ents), l.bytes)
			}
			var done int64
			l.OnEmitted = func(d, _ int64) { done = d }
			finishAndCheck(t, db, l, want)
			if done != int64(tc.n) {
				t.Fatalf("progress %d, want %d", done, tc.n)
			}
			checkNoLoadFiles(t, dir)
		})
	}
}

// TestSortedLoadStreamEndsOutOfOrder: keys that stop rising once the
// load streams (a late event) end the stream; its tables are read back
// and merged with the rest, in memory and in spilled runs, so the index
// holds every key once and in order. An aborted stream leaves nothing.
func TestSortedLoadStreamEndsOutOfOrder(t *testing.T) {
	for _, tc := range []struct {
		name   string
		budget int
	}{
		{"in memory", DefaultSortBudget},
		{"with spilled runs", 7 << 20}, // over the threshold with the entry table
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, db := openLoadDB(t)
			l := db.NewSortedLoad(indexPrefixLen, nil)
			l.SetBudget(tc.budget)
			var want [][]byte
			add := func(i int) {
				k := risingKey(i)
				if err := l.Add(k, []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
				want = append(want, k)
			}
			// Even keys rise past the threshold and stream...
			for i := 0; i < 200_000; i += 2 {
				add(i)
			}
			if l.stream == nil {
				t.Fatal("a rising load over the threshold is not streamed")
			}
			// ... then odd keys fall between them, and some rise again.
			r := rand.New(rand.NewPCG(3, 4))
			for _, i := range r.Perm(100_000) {
				add(2*i + 1)
			}
			for i := 200_001; i < 230_000; i += 2 {
				add(i)
			}
			if l.stream != nil || len(l.streamed) == 0 {
				t.Fatalf("stream %v, streamed tables %v: the stream did not end", l.stream != nil, l.streamed)
			}
			if tc.budget < DefaultSortBudget && len(l.runs) == 0 {
				t.Fatal("no run spilled")
			}
			finishAndCheck(t, db, l, want)
			checkNoLoadFiles(t, dir)
		})
	}
	t.Run("aborted", func(t *testing.T) {
		dir, db := openLoadDB(t)
		l := db.NewSortedLoad(indexPrefixLen, nil)
		for i := 0; i < 120_000; i++ {
			if err := l.Add(risingKey(i), []byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if l.stream == nil {
			t.Fatal("not streamed")
		}
		l.Abort()
		checkIndex(t, db, nil)
		checkNoLoadFiles(t, dir)
	})
}

// openLoadDB opens a database in a fresh directory for a load test,
// closed when the test ends.
func openLoadDB(t *testing.T) (dir string, db *DB) {
	t.Helper()
	dir = t.TempDir()
	db, err := Open(dir, Options{SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return dir, db
}

// checkNoLoadFiles fails when a load left its directory in dir.
func checkNoLoadFiles(t *testing.T, dir string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, "bulk-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
