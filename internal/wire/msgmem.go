package wire

import (
	"math/bits"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Message memory kept for reuse. ReadMessage reads a message of
// memMinSize to memMaxSize bytes into a buffer of a size class (a power of
// two) from a pool, and slices its one document sequence's documents from
// a pooled slice, when the pool has them; Msg.Recycle gives both back
// once the caller knows that nothing refers to the message any more
// (lode serve does so after an insert whose documents the engine copied
// into its commit). A fresh buffer for each insertMany of a load cost its
// first touch: the kernel's copy from the socket faulted in a third of
// its pages, 39% of the page faults of an event-log load
// (docs/benchmarks.md).
//
// A message that is never recycled keeps its memory, which the garbage
// collector frees once nothing refers to it, as before.

// Size classes: 64 KiB to 4 MiB. Smaller messages come and go in the Go
// allocator's own size classes; larger ones are rare.
const (
	memMinShift = 16
	memMaxShift = 22
	memMinSize  = 1 << memMinShift
	memMaxSize  = 1 << memMaxShift
)

// msgMem is the memory of one pooled message: its buffer, whose capacity
// is at least its class's size, and the slice its document sequence's
// documents were put in.
type msgMem struct {
	buf  []byte
	docs []bsoncore.Document
}

// memPools holds free msgMems by class: memPools[c] has buffers of at
// least memMinSize<<c bytes.
var memPools [memMaxShift - memMinShift + 1]sync.Pool

// memClassFor is the class whose buffers hold n bytes (the smallest at
// least n), or -1 when n is outside the pooled sizes.
func memClassFor(n int) int {
	if n < memMinSize || n > memMaxSize {
		return -1
	}
	return bits.Len(uint(n-1)) - memMinShift
}

// memClassOf is the class a buffer of capacity c serves (the largest at
// most c), or -1 when c is below the smallest.
func memClassOf(c int) int {
	if c < memMinSize {
		return -1
	}
	return min(bits.Len(uint(c))-1-memMinShift, memMaxShift-memMinShift)
}

// memRound is n rounded up to its class's size, or n when not pooled: a
// buffer allocated for a message is that large, so that its class holds it
// and the next message of about the same size fits.
func memRound(n int) int {
	if c := memClassFor(n); c >= 0 {
		return memMinSize << c
	}
	return n
}

// takeMem returns a free msgMem whose buffer holds n bytes, or nil.
func takeMem(n int) *msgMem {
	c := memClassFor(n)
	if c < 0 {
		return nil
	}
	if m, ok := memPools[c].Get().(*msgMem); ok {
		return m
	}
	return nil
}

// poisonRecycled fills recycled buffers with 0xFF (tests: a reference kept
// past Recycle then reads garbage).
var poisonRecycled bool

// SetPoisonRecycled makes Msg.Recycle overwrite what it gives back, so that
// a test sees any use of a message's memory after its recycling.
func SetPoisonRecycled(on bool) { poisonRecycled = on }

// Pooled reports whether the message's memory can be recycled.
func (m *Msg) Pooled() bool { return m.mem != nil }

// Recycle gives the message's memory back for the messages read after it.
// The caller promises that nothing refers to m's body, its sequences'
// documents or anything sliced from them any more; m is emptied. A message
// not read by ReadMessage, or not of a pooled size, is left alone.
func (m *Msg) Recycle() {
	mem := m.mem
	if mem == nil {
		return
	}
	m.mem, m.Body, m.Sequences = nil, nil, nil
	c := memClassOf(cap(mem.buf))
	if c < 0 {
		return
	}
	if poisonRecycled {
		b := mem.buf[:cap(mem.buf)]
		for i := range b {
			b[i] = 0xFF
		}
	}
	mem.buf, mem.docs = mem.buf[:0], mem.docs[:0]
	memPools[c].Put(mem)
}
