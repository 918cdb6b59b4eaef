package engine

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

func ubKey(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// TestUniqueBound checks the bound against a model of the index: a key it
// calls absent must not be an entry (else a duplicate would be accepted),
// and keys a little below the highest that are not entries must be called
// absent (else the bound saves no seek).
func TestUniqueBound(t *testing.T) {
	for _, start := range []uint64{0, 1_000_000} {
		rng := rand.New(rand.NewPCG(1, start))
		index := map[uint64]bool{}
		b := newUniqueBound(nil) // an empty index
		if start > 0 {
			var last uint64
			for i := uint64(0); i < start; i += 7 {
				index[i], last = true, i
			}
			b = newUniqueBound(ubKey(last))
		}
		next := start
		saved, sought := 0, 0
		for step := 0; step < 20000; step++ {
			switch r := rng.IntN(10); {
			case r < 7: // an insert a little out of order, as from many clients
				next += 3
				k := next - uint64(rng.IntN(40))
				if !index[k] {
					index[k] = true
					b.note(ubKey(k))
				}
			case r < 8: // a removal, which the bound does not see
				k := next - uint64(rng.IntN(2000))
				delete(index, k)
			default: // a check anywhere
				k := uint64(rng.IntN(int(next + 100)))
				if b.absent(ubKey(k)) && index[k] {
					t.Fatalf("start %d step %d: key %d is an entry, called absent", start, step, k)
				}
			}
			// Keys just below the highest that are not entries are absent
			// without a seek.
			k := next - uint64(rng.IntN(30))
			if !index[k] {
				if b.absent(ubKey(k)) {
					saved++
				} else {
					sought++
				}
			}
			if b.absent(ubKey(k)) && index[k] {
				t.Fatalf("start %d step %d: key %d is an entry, called absent", start, step, k)
			}
		}
		if sought*20 > saved {
			t.Errorf("start %d: %d keys near the top answered without a seek, %d sought", start, saved, sought)
		}
		if len(b.keys) > maxTailKeys || len(b.arena) > maxTailBytes {
			t.Errorf("tail %d keys, %d bytes: over its bounds", len(b.keys), len(b.arena))
		}
		// Every entry above the floor is in the tail.
		for k := range index {
			if (b.all || string(ubKey(k)) > string(b.floor)) && b.absent(ubKey(k)) {
				t.Fatalf("start %d: entry %d above the floor not in the tail", start, k)
			}
		}
	}
}

// TestUniqueBoundNoteRising checks a bulk insert's notes: the bound stays
// sound (a key it calls absent is no entry) whatever order the keys come
// in, a rising key leaves every key above it absent without a seek, and
// the keys at or below it are sought.
func TestUniqueBoundNoteRising(t *testing.T) {
	for _, empty := range []bool{true, false} {
		b, index := newUniqueBound(nil), map[uint64]bool{}
		if !empty {
			b, index[100] = newUniqueBound(ubKey(100)), true
		}
		rng := rand.New(rand.NewPCG(2, 0))
		next := uint64(100)
		for step := 0; step < 5000; step++ {
			// Batches of rising keys, a few out of order, and plain
			// inserts between them (note).
			next += uint64(1 + rng.IntN(5))
			k := next
			if rng.IntN(10) == 0 {
				k = next - uint64(rng.IntN(50))
			}
			if !index[k] {
				index[k] = true
				if step%500 < 400 {
					b.noteRising(ubKey(k))
				} else {
					b.note(ubKey(k))
				}
			}
			for probe := next - 60; probe <= next+3; probe++ {
				if b.absent(ubKey(probe)) && index[probe] {
					t.Fatalf("empty %v step %d: key %d is an entry, called absent", empty, step, probe)
				}
			}
		}
	}
	b := newUniqueBound(nil)
	b.noteRising(ubKey(5))
	b.noteRising(ubKey(9))
	for _, c := range []struct {
		k      uint64
		absent bool
	}{{10, true}, {1000, true}, {9, false}, {7, false}, {5, false}} {
		if got := b.absent(ubKey(c.k)); got != c.absent {
			t.Errorf("after rising 5, 9: absent(%d) = %v, want %v", c.k, got, c.absent)
		}
	}
}
