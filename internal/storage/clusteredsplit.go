package storage

import (
	"encoding/binary"
	"fmt"
)

// SplitClustered divides the records of clustered collection collID whose
// cluster keystrings lie in [lo, hi) (nil: unbounded) into up to n
// consecutive key ranges for parallel scans. It reads the first and the
// last key of the range and interpolates between them on the eight bytes
// after their common prefix: even by time for the ObjectIds (and dates)
// that most cluster keys begin with, and correct whatever the keys are
// (the ranges cover [lo, hi) exactly; only their balance depends on the
// keys). It returns nil when the range holds too few distinct keys.
func SplitClustered(r Reader, collID uint64, lo, hi []byte, n int) ([][2][]byte, error) {
	if n < 2 {
		return nil, nil
	}
	lower, upper := recordRange(collID)
	if lo != nil {
		lower = appendClusteredKey(nil, collID, lo)
	}
	if hi != nil {
		upper = appendClusteredKey(nil, collID, hi)
	}
	first, last, err := keySpan(r, lower, upper)
	if err != nil {
		return nil, fmt.Errorf("storage: split clustered records: %w", err)
	}
	if first == nil {
		return nil, nil
	}
	f, l := first[clusteredKeyPrefixLen:], last[clusteredKeyPrefixLen:]
	p := 0
	for p < len(f) && p < len(l) && f[p] == l[p] {
		p++
	}
	a, b := be8(f[p:]), be8(l[p:])
	if b <= a || b-a < uint64(n) {
		return nil, nil
	}
	out := make([][2][]byte, n)
	prev := lo
	for i := 1; i < n; i++ {
		v := a + (b-a)/uint64(n)*uint64(i)
		k := binary.BigEndian.AppendUint64(append([]byte(nil), f[:p]...), v)
		out[i-1] = [2][]byte{prev, k}
		prev = k
	}
	out[n-1] = [2][]byte{prev, hi}
	return out, nil
}

// be8 reads up to eight bytes of b as a big-endian number, zero-padded.
func be8(b []byte) uint64 {
	var x [8]byte
	copy(x[:], b)
	return binary.BigEndian.Uint64(x[:])
}
