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
	// tail's keys, sorted and distinct, are arena[k.off:k.off+k.n] for k
	// in keys: appended in arrival order, kept in key order by keys.
	arena []byte
	keys  []tailKey
	spare []byte // the arena before the last drop, for the next
}

type tailKey struct{ off, n uint32 }

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

func (b *uniqueBound) key(k tailKey) []byte { return b.arena[k.off : k.off+k.n] }

// find returns where ks is, or would be, in keys.
func (b *uniqueBound) find(ks []byte) (int, bool) {
	return slices.BinarySearchFunc(b.keys, ks, func(k tailKey, ks []byte) int {
		return bytes.Compare(b.key(k), ks)
	})
}

// absent reports whether the index is known to hold no entry ks.
func (b *uniqueBound) absent(ks []byte) bool {
	if b.max == nil || bytes.Compare(ks, b.max) > 0 {
		return true
	}
	if !b.all && bytes.Compare(ks, b.floor) <= 0 {
		return false
	}
	_, found := b.find(ks)
	return !found
}

// note records a new entry ks.
func (b *uniqueBound) note(ks []byte) {
	i := len(b.keys)
	if b.max == nil || bytes.Compare(ks, b.max) > 0 {
		// Above every entry (ascending keys): the tail's end.
		b.max = append(b.max[:0], ks...)
	} else if !b.all && bytes.Compare(ks, b.floor) <= 0 {
		return // at or below the floor: sought anyway
	} else {
		var found bool
		if i, found = b.find(ks); found {
			return
		}
	}
	k := tailKey{off: uint32(len(b.arena)), n: uint32(len(ks))}
	b.arena = append(b.arena, ks...)
	b.keys = slices.Insert(b.keys, i, k)
	if len(b.keys) > maxTailKeys || len(b.arena) > maxTailBytes {
		b.dropLowerHalf()
	}
}

// noteRising records a new entry ks of a bulk insert, whose keys mostly
// rise: a key above max becomes both max and floor, and tail is
// emptied. A bulk batch's thousands of keys would pass through tail
// only to be dropped half by half (maxTailKeys), leaving a floor near max
// anyway; a key out of order is sought, as one at or below floor is. A
// key at or below max is noted as note does.
func (b *uniqueBound) noteRising(ks []byte) {
	if b.max != nil && bytes.Compare(ks, b.max) <= 0 {
		b.note(ks)
		return
	}
	b.max = append(b.max[:0], ks...)
	b.floor = append(b.floor[:0], ks...)
	b.all = false
	b.arena, b.keys = b.arena[:0], b.keys[:0]
}

// dropLowerHalf forgets the lower half of tail (by key); floor rises to
// the highest key forgotten, so that every entry above it is still in
// tail. The arena is rewritten with the keys kept.
func (b *uniqueBound) dropLowerHalf() {
	h := max(len(b.keys)/2, 1)
	b.floor = append(b.floor[:0], b.key(b.keys[h-1])...)
	b.all = false
	kept := b.keys[h:]
	var n int
	for _, k := range kept {
		n += int(k.n)
	}
	arena := b.spare[:0]
	if cap(arena) < 2*n {
		arena = make([]byte, 0, max(2*n, 4<<10))
	}
	for i, k := range kept {
		off := len(arena)
		arena = append(arena, b.key(k)...)
		kept[i].off = uint32(off)
	}
	b.arena, b.spare = arena, b.arena
	b.keys = b.keys[:copy(b.keys, kept)]
}
