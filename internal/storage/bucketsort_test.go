package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// loadOf adds keys prefix+head+rid for the given heads and rids to a
// SortedLoad with a rising 8-byte suffix.
func loadOf(t *testing.T, heads []string, rids []uint64) *SortedLoad {
	l := (&DB{}).NewSortedLoad(3, nil)
	l.SetRisingSuffix(8)
	for i, h := range heads {
		k := append([]byte("pfx"), h...)
		k = binary.BigEndian.AppendUint64(k, rids[i])
		if err := l.Add(k, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func sortedKeys(l *SortedLoad) [][]byte {
	var out [][]byte
	for _, e := range l.ents {
		out = append(out, l.key(e))
	}
	return out
}

// TestBucketSortOrdersLikeTheComparisonSort: an index build's entries
// with few distinct keystrings (paths shared by many records) come out of
// the grouping in the comparison sort's order; many distinct keystrings,
// or record ids that do not rise, leave the comparison sort to it.
func TestBucketSortOrdersLikeTheComparisonSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	var heads []string
	var rids []uint64
	for i := range n {
		// Paths sharing a long prefix, as the eventlog's do.
		heads = append(heads, fmt.Sprintf("/site/section/page-%03d", r.IntN(300)))
		rids = append(rids, uint64(i+1))
	}
	l := loadOf(t, heads, rids)
	if !l.bucketSort() {
		t.Fatal("300 distinct paths over 20,000 entries were not grouped")
	}
	got := sortedKeys(l)
	want := loadOf(t, heads, rids)
	want.suffix = 0
	want.sort()
	for i, k := range sortedKeys(want) {
		if !bytes.Equal(got[i], k) {
			t.Fatalf("entry %d: grouped %q, sorted %q", i, got[i], k)
		}
	}

	// Every keystring distinct: too many groups.
	var distinct []string
	for i := range n {
		distinct = append(distinct, fmt.Sprintf("k%06d", r.IntN(1<<30)+i))
	}
	if loadOf(t, distinct, rids).bucketSort() {
		t.Error("20,000 distinct keystrings were grouped")
	}

	// A record id that falls within a group: the promise is broken, so
	// the comparison sort decides (and still orders them).
	bad := append([]uint64(nil), rids...)
	bad[len(bad)-1] = 0
	heads[len(heads)-1] = heads[0]
	l = loadOf(t, heads, bad)
	if l.bucketSort() {
		t.Error("a falling record id was grouped")
	}
	l.sort()
	keys := sortedKeys(l)
	for i := 1; i < len(keys); i++ {
		if bytes.Compare(keys[i-1], keys[i]) >= 0 {
			t.Fatalf("entries %d and %d out of order after the fallback", i-1, i)
		}
	}
}

// TestBucketSortByFirstField: entries of a compound index whose later
// fields rise or fall with the records within each value of the first
// field are grouped on that field (AddHead) in the comparison sort's
// order; a group whose suffixes turn back, and heads that are prefixes
// of one another, leave it to the comparison sort.
func TestBucketSortByFirstField(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	type ent struct {
		head string
		rest []byte
	}
	mk := func(turn bool, prefixHeads bool) []ent {
		var es []ent
		for i := range n {
			c := r.IntN(40)
			head := fmt.Sprintf("cat%02d|", c)
			if prefixHeads && c == 7 && i%2 == 0 {
				head = "cat07|x|" // cat07| is a prefix of it
			}
			ts := uint64(i)
			if c%2 == 1 {
				ts = ^ts // a descending field: falls as records rise
			}
			if turn && i == n/2 && c%2 == 0 {
				ts = 0 // one entry whose suffix turns back
			}
			rest := binary.BigEndian.AppendUint64(nil, ts)
			rest = binary.BigEndian.AppendUint64(rest, uint64(i+1)) // the record id
			es = append(es, ent{head, rest})
		}
		return es
	}
	load := func(es []ent) *SortedLoad {
		l := (&DB{}).NewSortedLoad(3, nil)
		l.SetRisingSuffix(8)
		for i, e := range es {
			k := append(append([]byte("pfx"), e.head...), e.rest...)
			if err := l.AddHead(k, []byte{byte(i)}, len(e.head)); err != nil {
				t.Fatal(err)
			}
		}
		return l
	}
	check := func(name string, es []ent, wantGrouped bool) {
		t.Helper()
		l := load(es)
		if got := l.bucketSort(); got != wantGrouped {
			t.Fatalf("%s: grouped %v, want %v", name, got, wantGrouped)
		}
		if !wantGrouped {
			l.sort()
		}
		want := load(es)
		want.heads, want.suffix = nil, 0
		want.sort()
		got := sortedKeys(l)
		for i, k := range sortedKeys(want) {
			if !bytes.Equal(got[i], k) {
				t.Fatalf("%s: entry %d: %x, sorted %x", name, i, got[i], k)
			}
		}
	}
	check("rising and falling groups", mk(false, false), true)
	check("a suffix that turns back", mk(true, false), false)
	check("a head that is a prefix of another", mk(false, true), false)
}

// TestSortedLoadPresorted: entries added in rising key order are left as
// they are, in falling order reversed; one out of place among them is
// sorted into its place.
func TestSortedLoadPresorted(t *testing.T) {
	const n = 5000
	mk := func(falling, swap bool) *SortedLoad {
		l := (&DB{}).NewSortedLoad(3, nil)
		for i := range n {
			j := i
			if swap && (i == 10 || i == 4000) {
				j = 4010 - i // 10 and 4000 trade places
			}
			if falling {
				j = n - 1 - j
			}
			if err := l.Add(binary.BigEndian.AppendUint64([]byte("pfx"), uint64(j)), nil); err != nil {
				t.Fatal(err)
			}
		}
		return l
	}
	for _, falling := range []bool{false, true} {
		if l := mk(falling, false); !l.presorted() {
			t.Fatalf("falling %v: ordered keys not seen as ordered", falling)
		} else {
			for i, k := range sortedKeys(l) {
				if got := binary.BigEndian.Uint64(k[3:]); got != uint64(i) {
					t.Fatalf("falling %v: entry %d is %d", falling, i, got)
				}
			}
		}
		l := mk(falling, true)
		if l.presorted() {
			t.Fatalf("falling %v: keys out of place seen as ordered", falling)
		}
		l.sort()
		for i, k := range sortedKeys(l) {
			if got := binary.BigEndian.Uint64(k[3:]); got != uint64(i) {
				t.Fatalf("falling %v: entry %d is %d after sorting", falling, i, got)
			}
		}
	}
}
