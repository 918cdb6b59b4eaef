package bsoncolumn

import (
	"bytes"
	"encoding/binary"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Builder writes a BSONColumn: the values of one field across a sequence of
// measurements, with skips where a measurement lacks the field. Append and
// Skip add values in order; Finish returns the column's binary. A Builder may
// be reused after Reset.
type Builder struct {
	out []byte

	prev    bsoncore.Value // last value appended, Type 0 before the first
	prevBuf []byte         // owns prev.Data
	kind    int
	dod     bool

	prevEnc   int64 // last value as an integer (64-bit kinds but double)
	prevDelta int64 // last delta (delta of delta kinds)
	prev128   u128
	prev128ok bool

	prevDouble float64
	segs       []segment
	vals       []s8val
	blocks     []uint64
	pk         packer

	il interleaver

	// For an interleaved stream: where each control ends and how many values
	// it holds.
	chunked bool
	chunks  []chunk
}

type chunk struct{ end, count int }

// segment is a stretch of a run's values that shares one control byte kind:
// for doubles its scale, decided by its first non-zero delta.
type segment struct {
	start  int
	scale  int8    // -1: not yet decided
	anchor float64 // the double the decoder rescales at the segment's start
}

// Reset empties the builder, keeping its buffers.
func (b *Builder) Reset() {
	b.out = b.out[:0]
	b.prev = bsoncore.Value{}
	b.prevBuf = b.prevBuf[:0]
	b.segs = b.segs[:0]
	b.vals = b.vals[:0]
	b.pk = newPacker()
	b.il.active = false
	b.chunked = false
	b.chunks = b.chunks[:0]
}

// Skip adds a missing value.
func (b *Builder) Skip() {
	if b.il.active {
		b.il.entries = append(b.il.entries, [2]int{0, -1})
		return
	}
	if len(b.segs) == 0 {
		// Skips before any literal: a 64-bit run at scale "memory".
		b.segs = append(b.segs, segment{scale: memoryAsInteger})
	}
	b.vals = append(b.vals, s8val{skip: true})
}

// Append adds v; a value of Type 0 is a skip.
func (b *Builder) Append(v bsoncore.Value) {
	if v.Type == 0 {
		b.Skip()
		return
	}
	if v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeArray {
		if !b.chunked && b.appendObject(v) {
			return
		}
	} else if b.il.active {
		b.endInterleaved()
	}
	if b.prev.Type == 0 || v.Type != b.prev.Type {
		b.literal(v)
		return
	}
	switch b.kind {
	case kind64:
		if v.Type == bsoncore.TypeDouble {
			if !b.appendDouble(v) {
				b.literal(v)
			}
			return
		}
		if v.Type == bsoncore.TypeObjectID && !bytes.Equal(v.Data[4:9], b.prev.Data[4:9]) {
			b.literal(v)
			return
		}
		cur := encode64(v)
		delta := cur - b.prevEnc
		d := delta
		if b.dod {
			d = delta - b.prevDelta
		}
		z := zigzag64(d)
		if !encodable(u128{lo: z}) {
			b.literal(v)
			return
		}
		b.vals = append(b.vals, s8val{v: u128{lo: z}})
		b.prevEnc, b.prevDelta = cur, delta
		b.setPrev(v)
	case kind128:
		if bytes.Equal(v.Data, b.prev.Data) {
			b.vals = append(b.vals, s8val{})
			return
		}
		if !b.prev128ok {
			b.literal(v)
			return
		}
		if v.Type == bsoncore.TypeBinary && (len(v.Data) != len(b.prev.Data) || v.Data[4] != b.prev.Data[4]) {
			b.literal(v)
			return
		}
		cur, ok := encode128(v)
		if !ok {
			b.literal(v)
			return
		}
		z := zigzag128(sub128(cur, b.prev128))
		if !encodable(z) {
			b.literal(v)
			return
		}
		b.vals = append(b.vals, s8val{v: z})
		b.prev128 = cur
		b.setPrev(v)
	default:
		if bytes.Equal(v.Data, b.prev.Data) {
			b.vals = append(b.vals, s8val{})
			return
		}
		b.literal(v)
	}
}

func (b *Builder) appendDouble(v bsoncore.Value) bool {
	cur := math.Float64frombits(binary.LittleEndian.Uint64(v.Data))
	if math.Float64bits(cur) == math.Float64bits(b.prevDouble) {
		b.vals = append(b.vals, s8val{})
		return true
	}
	seg := &b.segs[len(b.segs)-1]
	if seg.scale >= 0 && len(b.vals) > seg.start {
		_, ok := encodeDouble(cur, uint8(seg.scale))
		// A finer scale is needed, or raw bits are no longer: a new control
		// byte, whose decoder rescales the previous value.
		if !ok || (seg.scale == memoryAsInteger && max(doubleScale(b.prevDouble), doubleScale(cur)) < memoryAsInteger) {
			b.segs = append(b.segs, segment{start: len(b.vals), scale: -1, anchor: b.prevDouble})
			seg = &b.segs[len(b.segs)-1]
		}
	}
	if seg.scale < 0 {
		s := max(doubleScale(seg.anchor), doubleScale(cur))
		_, ok1 := encodeDouble(seg.anchor, s)
		_, ok2 := encodeDouble(cur, s)
		if !ok1 || !ok2 {
			s = memoryAsInteger
		}
		seg.scale = int8(s)
	}
	p, _ := encodeDouble(b.prevDouble, uint8(seg.scale))
	c, _ := encodeDouble(cur, uint8(seg.scale))
	z := zigzag64(c - p)
	if !encodable(u128{lo: z}) {
		return false // a literal, which starts a new run
	}
	b.vals = append(b.vals, s8val{v: u128{lo: z}})
	b.prevDouble = cur
	b.setPrev(v)
	return true
}

func (b *Builder) setPrev(v bsoncore.Value) {
	b.prevBuf = append(b.prevBuf[:0], v.Data...)
	b.prev = bsoncore.Value{Type: v.Type, Data: b.prevBuf}
}

// literal ends the current run and writes v whole.
func (b *Builder) literal(v bsoncore.Value) {
	b.flushRun()
	b.out = append(b.out, byte(v.Type), 0)
	b.out = append(b.out, v.Data...)
	if b.chunked {
		b.chunks = append(b.chunks, chunk{end: len(b.out), count: 1})
	}
	b.startFrom(v)
}

// startFrom sets the state a decoder has after reading literal v.
func (b *Builder) startFrom(v bsoncore.Value) {
	b.setPrev(v)
	b.kind = typeKind(v.Type)
	b.dod = deltaOfDelta(v.Type)
	b.pk = newPacker()
	switch b.kind {
	case kind64:
		if v.Type == bsoncore.TypeDouble {
			b.prevDouble = math.Float64frombits(binary.LittleEndian.Uint64(v.Data))
			b.segs = append(b.segs, segment{scale: -1, anchor: b.prevDouble})
			return
		}
		b.prevEnc, b.prevDelta = encode64(v), 0
	case kind128:
		b.prev128, b.prev128ok = encode128(v)
	}
	b.segs = append(b.segs, segment{scale: memoryAsInteger})
}

// flushRun writes the pending Simple-8b values as control blocks of at most
// 16 blocks each.
func (b *Builder) flushRun() {
	for i, seg := range b.segs {
		end := len(b.vals)
		if i+1 < len(b.segs) {
			end = b.segs[i+1].start
		}
		if end == seg.start {
			continue
		}
		scale := seg.scale
		if scale < 0 {
			scale = int8(doubleScale(seg.anchor))
		}
		b.blocks = b.pk.pack(b.blocks[:0], b.vals[seg.start:end])
		for blocks := b.blocks; len(blocks) > 0; {
			n := min(len(blocks), 16)
			b.out = append(b.out, controlForScale[scale]|byte(n-1))
			count := 0
			for _, w := range blocks[:n] {
				b.out = binary.LittleEndian.AppendUint64(b.out, w)
				c, _ := blockCount(w)
				count += c
			}
			if b.chunked {
				b.chunks = append(b.chunks, chunk{end: len(b.out), count: count})
			}
			blocks = blocks[n:]
		}
	}
	b.segs = b.segs[:0]
	b.vals = b.vals[:0]
}

// Finish ends the column and returns its binary (the builder's buffer, valid
// until the next Reset).
func (b *Builder) Finish() []byte {
	b.endInterleaved()
	b.flushRun()
	b.out = append(b.out, 0)
	return b.out
}

// Encode returns the column of values (Type 0 marks a skip).
func Encode(values []bsoncore.Value) []byte {
	var b Builder
	for _, v := range values {
		b.Append(v)
	}
	return append([]byte(nil), b.Finish()...)
}
