package engine

import (
	"bytes"
	"slices"
)

// uniqueBound is what a collection knows of the highest entries of one of
// its unique indexes, so that the unique check of most new keys needs no
// seek (writeBatch.checkUnique):
//
//   - no entry's keystring exceeds max (nil: the index was empty);
//   - every entry above floor is in tail, a sorted set of keystrings
//     (floor is below every key while all is set).
//
// A key above max is new. A key at or below max but above floor is new
// unless tail holds it: ObjectIds made by many clients arrive a little out
// of order, below the highest _id so far but above the floor. Only a key
// in tail (an entry, or one since removed) or at or below floor needs a
// seek. Entries may leave the index without leaving tail; a key there is
// then sought and found absent.
//
// The bound follows the hints' rules (scanhints.go): every entry set under
// the collection's writer lock goes through note (noteIndexSet), a
// transaction commit discards it, DDL clears it.
type uniqueBound struct {
	max   []byte
	floor []byte
	all   bool
	tail  [][]byte // sorted, distinct
	size  int      // bytes in tail
	free  [][]byte // buffers of keys dropped from tail, for reuse
}

// Bounds of a tail: past maxTailKeys keys or maxTailBytes bytes, its lower
// half is dropped and floor rises to the highest key dropped.
const (
	maxTailKeys  = 512
	maxTailBytes = 64 << 10
)

// newUniqueBound returns the bound of an index whose last entry is last
// (nil: the index is empty).
func newUniqueBound(last []byte) *uniqueBound {
	if last == nil {
		return &uniqueBound{all: true}
	}
	return &uniqueBound{max: bytes.Clone(last), floor: bytes.Clone(last)}
}

// absent reports whether the index is known to hold no entry ks.
func (b *uniqueBound) absent(ks []byte) bool {
	if b.max == nil || bytes.Compare(ks, b.max) > 0 {
		return true
	}
	if !b.all && bytes.Compare(ks, b.floor) <= 0 {
		return false
	}
	_, found := slices.BinarySearchFunc(b.tail, ks, bytes.Compare)
	return !found
}

// note records a new entry ks.
func (b *uniqueBound) note(ks []byte) {
	if b.max == nil || bytes.Compare(ks, b.max) > 0 {
		b.max = append(b.max[:0], ks...)
	}
	if !b.all && bytes.Compare(ks, b.floor) <= 0 {
		return // below the floor: sought anyway
	}
	// New keys mostly land at or near the end.
	i := len(b.tail)
	if i > 0 {
		if c := bytes.Compare(ks, b.tail[i-1]); c == 0 {
			return
		} else if c < 0 {
			var found bool
			if i, found = slices.BinarySearchFunc(b.tail, ks, bytes.Compare); found {
				return
			}
		}
	}
	var buf []byte
	if n := len(b.free); n > 0 {
		buf, b.free = b.free[n-1], b.free[:n-1]
	}
	b.tail = slices.Insert(b.tail, i, append(buf[:0], ks...))
	b.size += len(ks)
	if len(b.tail) > maxTailKeys || b.size > maxTailBytes {
		b.dropLowerHalf()
	}
}

// dropLowerHalf forgets the lower half of tail; floor rises to the highest
// key forgotten, so that every entry above it is still in tail.
func (b *uniqueBound) dropLowerHalf() {
	h := len(b.tail) / 2
	if h == 0 {
		h = 1 // a single key above maxTailBytes
	}
	b.floor = append(b.floor[:0], b.tail[h-1]...)
	b.all = false
	for _, k := range b.tail[:h] {
		b.size -= len(k)
		if cap(k) <= 256 {
			b.free = append(b.free, k)
		}
	}
	n := copy(b.tail, b.tail[h:])
	clear(b.tail[n:])
	b.tail = b.tail[:n]
}
