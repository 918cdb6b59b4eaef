package storage

import (
	"bytes"
	"context"
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
		{name: "type bits midway", entries: func() []dictEntry {
			es := few(20_000, 50)
			es[12_345].tb = []byte{0x01}
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
		{name: "a keystring that is a prefix of another", entries: func() []dictEntry {
			es := make([]dictEntry, 300_000) // ingested: tables need their keys in order
			for i := range es {
				ks := []byte("ab")
				if i%3 == 0 {
					ks = []byte("a") // "a"+rid sorts by the rid's bytes against "b"
				}
				// The record ids' first byte runs from 0 to 146, across 'b'.
				es[i] = dictEntry{ks: ks, rid: uint64(i)<<45 + 1}
			}
			return es
		}(), wantDict: true}, // kept until Finish, which moves them to the arena
		{name: "over the memory budget", entries: few(60_000, 50), budget: 256 << 10},
		{name: "unique index", entries: func() []dictEntry {
			es := make([]dictEntry, 5000)
			for i := range es {
				es[i] = dictEntry{ks: fmt.Appendf(nil, "u%06d", (i*7919)%5000), rid: uint64(i + 1)}
			}
			return es
		}(), unique: true},
		{name: "compound key with a head", entries: func() []dictEntry {
			es := few(5000, 20)
			for i := range es {
				es[i].head = len(es[i].ks)
				es[i].ks = append(es[i].ks, byte(i>>8), byte(i))
			}
			return es
		}()},
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
			lo, hi := indexRange(7)
			it, err := db.pdb.NewIter(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer it.Close()
			i := 0
			for ok := it.SeekGE(lo); ok && bytes.Compare(it.Key(), hi) < 0; ok = it.Next() {
				if i >= len(want) || !bytes.Equal(it.Key(), want[i].k) || !bytes.Equal(it.Value(), want[i].v) {
					t.Fatalf("entry %d is %q = %q, want %q = %q", i, it.Key(), it.Value(), want[min(i, len(want)-1)].k, want[min(i, len(want)-1)].v)
				}
				i++
			}
			if i != len(want) {
				t.Fatalf("%d entries, want %d", i, len(want))
			}
		})
	}
}
