package bsoncolumn

import (
	"bytes"
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Interleaved mode, as mongod writes a run of objects: a reference object
// holding every field of the run in an order all of them keep, then one
// stream of values per scalar field of the reference (a skip where an
// object lacks it), each encoded as a column of its own whose first value
// is relative to the reference's, their control blocks written in the order
// a decoder asks for them, and a 0 byte ending the run. Arrays inside
// objects are interleaved like objects; a run of arrays has its own control
// byte. An object without scalars, or with an empty object or array inside,
// is written whole (a decoder could not tell its empty parts from missing
// ones).

type refField struct {
	name []byte
	sub  *refNode // nil for a scalar
	typ  bsoncore.Type
	val  bsoncore.Value // a scalar's value in the reference
	leaf int
}

type refNode struct{ fields []refField }

// interleaver collects the run of objects being written in interleaved mode.
type interleaver struct {
	active   bool
	rootType bsoncore.Type
	root     refNode
	arena    []byte   // the run's objects
	entries  [][2]int // offset and length in arena; length -1 for a skip
	streams  []Builder
	cells    []bsoncore.Value
	chunkPos []int
	left     []int
}

// interleavable reports whether doc (an object or array value) can go into
// interleaved mode: at least one scalar, no empty object or array inside and
// no field name twice in one object.
func interleavable(doc []byte) bool {
	scalars := 0
	var names [][]byte
	var visit func(d []byte) bool
	visit = func(d []byte) bool {
		if len(d) == 5 {
			return false
		}
		first := len(names)
		ok := walk(d, func(t bsoncore.Type, key, val []byte) error {
			for _, n := range names[first:] {
				if bytes.Equal(n, key) {
					return errStop
				}
			}
			names = append(names, key)
			if t == bsoncore.TypeEmbeddedDocument || t == bsoncore.TypeArray {
				if !visit(val) {
					return errStop
				}
				return nil
			}
			scalars++
			return nil
		}) == nil
		names = names[:first]
		return ok
	}
	return visit(doc) && scalars > 0
}

var errStop = invalid("stop")

// merge adds doc's fields to node, keeping both orders; with dry set it only
// reports whether that is possible.
func (n *refNode) merge(doc []byte, dry bool) bool {
	pos := 0
	return walk(doc, func(t bsoncore.Type, key, val []byte) error {
		sub := t == bsoncore.TypeEmbeddedDocument || t == bsoncore.TypeArray
		k := -1
		for i := pos; i < len(n.fields); i++ {
			if bytes.Equal(n.fields[i].name, key) {
				k = i
				break
			}
		}
		if k < 0 {
			for i := 0; i < pos; i++ {
				if bytes.Equal(n.fields[i].name, key) {
					return errStop // out of the reference's order
				}
			}
			if !dry {
				f := refField{name: append([]byte(nil), key...), typ: t}
				if sub {
					f.sub = &refNode{}
					f.sub.merge(val, false)
				} else {
					f.val = bsoncore.Value{Type: t, Data: append([]byte(nil), val...)}
				}
				n.fields = append(n.fields, refField{})
				copy(n.fields[pos+1:], n.fields[pos:])
				n.fields[pos] = f
				pos++
			}
			return nil
		}
		f := &n.fields[k]
		if sub != (f.sub != nil) || (sub && f.typ != t) {
			return errStop
		}
		if sub && !f.sub.merge(val, dry) {
			return errStop
		}
		pos = k + 1
		return nil
	}) == nil
}

// number gives the reference's scalars their stream numbers, depth first.
func (n *refNode) number(next *int) {
	for i := range n.fields {
		f := &n.fields[i]
		if f.sub != nil {
			f.sub.number(next)
			continue
		}
		f.leaf = *next
		*next++
	}
}

func (n *refNode) appendDoc(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	for i := range n.fields {
		f := &n.fields[i]
		dst = append(dst, byte(f.typ))
		dst = append(dst, f.name...)
		dst = append(dst, 0)
		if f.sub != nil {
			dst = f.sub.appendDoc(dst)
		} else {
			dst = append(dst, f.val.Data...)
		}
	}
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// scatter puts doc's scalars into row, by stream number.
func (n *refNode) scatter(doc []byte, row []bsoncore.Value) {
	pos := 0
	_ = walk(doc, func(t bsoncore.Type, key, val []byte) error {
		for i := pos; i < len(n.fields); i++ {
			f := &n.fields[i]
			if !bytes.Equal(f.name, key) {
				continue
			}
			if f.sub != nil {
				f.sub.scatter(val, row)
			} else {
				row[f.leaf] = bsoncore.Value{Type: t, Data: val}
			}
			pos = i + 1
			break
		}
		return nil
	})
}

// appendObject adds an object or array to the interleaved run, starting one
// if needed; false if v must be written otherwise.
func (b *Builder) appendObject(v bsoncore.Value) bool {
	il := &b.il
	if il.active && (v.Type != il.rootType || !il.root.merge(v.Data, true)) {
		b.endInterleaved()
	}
	if !interleavable(v.Data) {
		b.endInterleaved()
		return false
	}
	if !il.active {
		b.flushRun()
		il.active = true
		il.rootType = v.Type
		il.root = refNode{}
		il.arena = il.arena[:0]
		il.entries = il.entries[:0]
	}
	il.root.merge(v.Data, false)
	il.entries = append(il.entries, [2]int{len(il.arena), len(v.Data)})
	il.arena = append(il.arena, v.Data...)
	return true
}

// endInterleaved writes the run collected so far; skips after its last
// object go back to regular mode.
func (b *Builder) endInterleaved() {
	il := &b.il
	if !il.active {
		return
	}
	il.active = false
	trailing := 0
	for len(il.entries) > 0 && il.entries[len(il.entries)-1][1] < 0 {
		il.entries = il.entries[:len(il.entries)-1]
		trailing++
	}
	nLeaves := 0
	il.root.number(&nLeaves)
	rows := len(il.entries)

	if il.rootType == bsoncore.TypeArray {
		b.out = append(b.out, interleavedArrayRoot)
	} else {
		b.out = append(b.out, interleavedObject)
	}
	b.out = il.root.appendDoc(b.out)

	// Each leaf's values, row by row.
	if cap(il.cells) < rows*nLeaves {
		il.cells = make([]bsoncore.Value, rows*nLeaves)
	}
	cells := il.cells[:rows*nLeaves]
	clear(cells)
	for r, e := range il.entries {
		if e[1] >= 0 {
			il.root.scatter(il.arena[e[0]:e[0]+e[1]], cells[r*nLeaves:(r+1)*nLeaves])
		}
	}
	if len(il.streams) < nLeaves {
		il.streams = append(il.streams, make([]Builder, nLeaves-len(il.streams))...)
	}
	streams := il.streams[:nLeaves]
	var leafVals func(n *refNode)
	leafVals = func(n *refNode) {
		for i := range n.fields {
			f := &n.fields[i]
			if f.sub != nil {
				leafVals(f.sub)
				continue
			}
			s := &streams[f.leaf]
			s.Reset()
			s.chunked = true
			s.startFrom(f.val)
			for r := 0; r < rows; r++ {
				s.Append(cells[r*nLeaves+f.leaf])
			}
			s.flushRun()
		}
	}
	leafVals(&il.root)

	// Write the streams' controls in the order a decoder reads them.
	il.chunkPos = append(il.chunkPos[:0], make([]int, nLeaves)...)
	il.left = append(il.left[:0], make([]int, nLeaves)...)
	for r := 0; r < rows; r++ {
		for j := range streams {
			if il.left[j] == 0 {
				s := &streams[j]
				c := s.chunks[il.chunkPos[j]]
				start := 0
				if il.chunkPos[j] > 0 {
					start = s.chunks[il.chunkPos[j]-1].end
				}
				b.out = append(b.out, s.out[start:c.end]...)
				il.left[j] = c.count
				il.chunkPos[j]++
			}
			il.left[j]--
		}
	}
	b.out = append(b.out, 0)

	// Regular mode again: a decoder repeats the last object on a zero delta.
	last := il.entries[rows-1]
	b.setPrev(bsoncore.Value{Type: il.rootType, Data: il.arena[last[0] : last[0]+last[1]]})
	b.kind = kindRepeat
	b.dod = false
	b.pk = newPacker()
	for ; trailing > 0; trailing-- {
		b.Skip()
	}
}
