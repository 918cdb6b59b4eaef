package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// dictEntry is an index entry as a test adds it.
type dictEntry struct {
	ks   []byte
	rid  uint64
	tb   []byte
	head int
}

// compound returns n entries of a two-field key: one of heads values
// ("hNNNN|"), then a time that rises with the records (dir 1) or falls
// (dir -1), with type bits tb; record ids rise.
func compound(n, heads, dir int, tb []byte) []dictEntry {
	r := rand.New(rand.NewPCG(9, 10))
	es := make([]dictEntry, n)
	for i := range es {
		head := fmt.Appendf(nil, "h%04d|", r.IntN(heads))
		ts := uint64(i)
		if dir < 0 {
			ts = ^ts
		}
		es[i] = dictEntry{ks: binary.BigEndian.AppendUint64(head, ts), rid: uint64(i + 1), tb: tb, head: len(head)}
	}
	return es
}

// prefixPair returns 300,000 entries (enough to be ingested, whose
// tables need their keys in order) of the keystrings "a" and "ab", or
// (compound) of those heads before a rising time. "a" followed by a
// record id or a time sorts by that number's first byte against "b";
// those bytes run from 0 to 146, across 'b'.
func prefixPair(compound bool) []dictEntry {
	es := make([]dictEntry, 300_000)
	for i := range es {
		ks := []byte("ab")
		if i%3 == 0 {
			ks = []byte("a")
		}
		n := uint64(i) << 45
		if compound {
			es[i] = dictEntry{ks: binary.BigEndian.AppendUint64(ks, n), rid: uint64(i + 1), head: len(ks)}
		} else {
			es[i] = dictEntry{ks: ks, rid: n + 1}
		}
	}
	return es
}

// TestIndexLoadDictionary: an index load of few distinct keystrings is
// written from its dictionary (keydict.go), and every way the dictionary
// gives up (type bits, record ids out of order, many or rising distinct
// keystrings, keystrings that are prefixes of others, the memory budget,
// a unique index's check, a compound key's head) still writes exactly
// the entries added, in key order.
func TestIndexLoadDictionary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	few := func(n, values int) []dictEntry {
		es := make([]dictEntry, n)
		for i := range es {
			es[i] = dictEntry{ks: fmt.Appendf(nil, "/site/page%04d.html\x00", r.IntN(values)), rid: uint64(i + 1)}
		}
		return es
	}
	for _, tc := range []struct {
		name     string
		entries  []dictEntry
		budget   int
		unique   bool
		wantDict bool // the dictionary is still in use at Finish
	}{
		{name: "few values, one batch", entries: few(3000, 50), wantDict: true},
		{name: "few values, ingested", entries: few(200_000, 1000), wantDict: true},
		{name: "type bits on some entries", entries: func() []dictEntry {
			// One keystring, two types (an int64 beside an int32 of the
			// same value): each entry keeps its own type bits. The first
			// comes after 100,000 entries without: the record id lists
			// turn into the long form midway.
			es := few(200_000, 50) // ingested
			for i := range es {
				if i%3 == 0 && i >= 100_000 {
					es[i].tb = []byte{0x01}
				}
			}
			return es
		}(), wantDict: true},
		{name: "a value over 255 bytes", entries: func() []dictEntry {
			es := few(20_000, 50)
			es[12_345].tb = bytes.Repeat([]byte{0x02}, 300)
			return es
		}()},
		{name: "record ids out of order", entries: func() []dictEntry {
			es := few(200_000, 5)         // ingested: tables need their keys in order
			es[90_001].ks = es[90_000].ks // one value's record ids fall
			es[90_000].rid, es[90_001].rid = es[90_001].rid, es[90_000].rid
			return es
		}()},
		{name: "distinct rising keys", entries: func() []dictEntry {
			es := make([]dictEntry, 300_000) // streamed by the arena once it gives up
			for i := range es {
				es[i] = dictEntry{ks: fmt.Appendf(nil, "t%010d", i), rid: uint64(i + 1)}
			}
			return es
		}()},
		{name: "distinct random keys", entries: func() []dictEntry {
			es := make([]dictEntry, 50_000)
			for i, v := range r.Perm(len(es)) {
				es[i] = dictEntry{ks: fmt.Appendf(nil, "k%08d", v), rid: uint64(i + 1)}
			}
			return es
		}()},
		{name: "a keystring that is a prefix of another", entries: prefixPair(false), wantDict: true}, // kept until Finish, which moves them to the arena
		{name: "over the memory budget", entries: few(60_000, 50), budget: 256 << 10},
		{name: "unique index", entries: func() []dictEntry {
			es := make([]dictEntry, 5000)
			for i := range es {
				es[i] = dictEntry{ks: fmt.Appendf(nil, "u%06d", (i*7919)%5000), rid: uint64(i + 1)}
			}
			return es
		}(), unique: true},
		{name: "compound, rising within each head", entries: compound(200_000, 50, 1, nil), wantDict: true},
		{name: "compound, falling within each head, with type bits", entries: compound(200_000, 100, -1, []byte{0, 1}), wantDict: true},
		// 20 bytes an entry: each head's entries span many of the
		// dictionary's 64 KiB chunks, read back to front.
		{name: "compound, falling within each of three heads", entries: compound(200_000, 3, -1, nil), wantDict: true},
		{name: "compound, equal suffixes rising", entries: func() []dictEntry {
			es := compound(20_000, 10, 1, nil)
			for i := range es {
				es[i].ks = es[i].ks[:es[i].head+1] // two suffix values: many ties
				es[i].ks[es[i].head] = byte(i * 2 / len(es))
			}
			return es
		}(), wantDict: true},
		{name: "compound, equal suffixes with record ids falling", entries: func() []dictEntry {
			// A clustered collection's scan gives record ids in its
			// cluster key's order, not rising.
			es := compound(200_000, 10, 1, nil) // ingested: tables need their keys in order
			for i := range es {
				es[i].ks = es[i].ks[:es[i].head+1]
				es[i].ks[es[i].head] = 'x'
				es[i].rid = uint64(len(es) - i)
			}
			return es
		}()},
		{name: "compound, a group that turns back", entries: func() []dictEntry {
			es := compound(200_000, 10, 1, nil)
			es[150_000].ks[es[150_000].head] ^= 0xff // one entry's time leaps, the next falls back
			return es
		}()},
		{name: "compound, an equal suffix in a falling group", entries: func() []dictEntry {
			es := compound(200_000, 3, -1, nil)
			for i := 100_001; i < len(es); i++ {
				if bytes.Equal(es[i].ks[:es[i].head], es[100_000].ks[:es[100_000].head]) {
					es[i].ks = append([]byte(nil), es[100_000].ks...)
					break
				}
			}
			return es
		}()},
		{name: "compound, a head longer than the rest", entries: func() []dictEntry {
			es := compound(20_000, 10, 1, nil)
			es[5_000].ks = append(es[5_000].ks, bytes.Repeat([]byte{'z'}, 300)...)
			return es
		}()},
		{name: "compound, heads of which one is a prefix of another", entries: prefixPair(true), wantDict: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(t.TempDir(), Options{SyncInterval: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var check func(prevKS, ks []byte, rid RecordID) error
			if tc.unique {
				check = func(prevKS, ks []byte, _ RecordID) error {
					if bytes.Equal(prevKS, ks) {
						return fmt.Errorf("duplicate %q", ks)
					}
					return nil
				}
			}
			l := db.NewIndexLoad(7, check)
			if tc.budget > 0 {
				l.SetBudget(tc.budget)
			}
			l.SizeHint(len(tc.entries))
			type kv struct{ k, v []byte }
			want := make([]kv, 0, len(tc.entries))
			for _, e := range tc.entries {
				if err := l.Add(e.ks, RecordID(e.rid), e.tb, e.head); err != nil {
					t.Fatal(err)
				}
				want = append(want, kv{appendIndexKey(nil, 7, e.ks, e.rid), e.tb})
			}
			if got := l.dict != nil; got != tc.wantDict {
				t.Errorf("dictionary in use at Finish: %v, want %v", got, tc.wantDict)
			}
			if got := l.Keys(); got != int64(len(tc.entries)) {
				t.Errorf("Keys() = %d, want %d", got, len(tc.entries))
			}
			if _, err := l.Finish(context.Background()); err != nil {
				t.Fatal(err)
			}
			slices.SortFunc(want, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
			keys, values := indexEntries(t, db, 7)
			for i, k := range keys {
				if i >= len(want) || !bytes.Equal(k, want[i].k) || !bytes.Equal(values[i], want[i].v) {
					t.Fatalf("entry %d is %q = %q, want %q = %q", i, k, values[i], want[min(i, len(want)-1)].k, want[min(i, len(want)-1)].v)
				}
			}
			if len(keys) != len(want) {
				t.Fatalf("%d entries, want %d", len(keys), len(want))
			}
		})
	}
}
