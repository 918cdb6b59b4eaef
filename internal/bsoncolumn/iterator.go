package bsoncolumn

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Iterator reads a BSONColumn value by value. The zero Iterator has no
// values; Reset points it at a column. It allocates only on its first values (its
// scratch buffers) and when it enters interleaved mode, not per value.
//
//	var it bsoncolumn.Iterator
//	it.Reset(col)
//	for v, ok := it.Next(); ok; v, ok = it.Next() {
//		if v.Type == 0 { /* this measurement lacks the field */ }
//	}
//	if err := it.Err(); err != nil { ... }
type Iterator struct {
	data []byte
	pos  int
	err  error
	done bool
	reg  stream

	// Interleaved mode.
	inter    bool
	rootType bsoncore.Type
	ops      []op
	leaves   []stream
	objs     [2][]byte // the object being built and the previous one
	cur      int
	stack    []frame
}

type op struct {
	kind       uint8 // opEnter, opScalar, opExit
	typ        bsoncore.Type
	allowEmpty bool
	leaf       int
	name       []byte
}

const (
	opEnter = iota
	opScalar
	opExit
)

type frame struct{ header, size int }

// Reset points the iterator at column data, keeping its buffers.
func (it *Iterator) Reset(data []byte) {
	it.data, it.pos, it.err, it.done = data, 0, nil, false
	it.reg.resetLiteral(bsoncore.Value{})
	it.reg.kind = kindRepeat
	it.inter = false
	if len(data) == 0 {
		it.fail(invalid("empty column"))
	}
}

// Err returns the error that stopped the iterator, if any.
func (it *Iterator) Err() error { return it.err }

func (it *Iterator) fail(err error) (bsoncore.Value, bool) {
	it.err, it.done = err, true
	it.reg.n, it.reg.i = 0, 0
	return bsoncore.Value{}, false
}

// Next returns the next value, a value of Type 0 for a skip (the measurement
// lacks the field), and false at the end of the column or on an error (see
// Err). The value's bytes stay valid until the next call to Next.
func (it *Iterator) Next() (bsoncore.Value, bool) {
	// The common case: the next value of a 64-bit block in regular mode.
	if s := &it.reg; s.i < s.n && s.kind != kind128 && !it.inter {
		k := s.i
		s.i++
		if s.skips&(1<<k) != 0 || s.last.Type == 0 {
			return bsoncore.Value{}, true
		}
		v, err := s.step64(s.vals[k])
		if err != nil {
			return it.fail(err)
		}
		return v, true
	}
	if it.done || it.data == nil {
		return bsoncore.Value{}, false
	}
	if it.inter {
		return it.nextInterleaved()
	}
	s := &it.reg
	if !s.exhausted() {
		return it.deltaOf(s)
	}
	if it.pos >= len(it.data) {
		return it.fail(invalid("no end of column"))
	}
	c := it.data[it.pos]
	switch {
	case c == 0:
		it.pos++
		if it.pos != len(it.data) {
			return it.fail(invalid("bytes after the end of column"))
		}
		it.done = true
		s.n, s.i = 0, 0
		return bsoncore.Value{}, false
	case isInterleavedControl(c):
		if err := it.startInterleaved(c); err != nil {
			return it.fail(err)
		}
		return it.nextInterleaved()
	case isLiteralControl(c):
		v, n, err := literalAt(it.data[it.pos:])
		if err != nil {
			return it.fail(err)
		}
		it.pos += n
		s.resetLiteral(v)
		return v, true
	}
	if err := it.loadControl(s, c); err != nil {
		return it.fail(err)
	}
	return it.deltaOf(s)
}

func (it *Iterator) loadControl(s *stream, c byte) error {
	size := 8 * (int(c&15) + 1)
	if it.pos+1+size >= len(it.data) {
		return invalid("control block past the end of column")
	}
	if err := s.loadBlocks(c, it.data[it.pos+1:it.pos+1+size]); err != nil {
		return err
	}
	it.pos += 1 + size
	return nil
}

func (it *Iterator) deltaOf(s *stream) (bsoncore.Value, bool) {
	d, err := s.nextDelta()
	if err != nil {
		return it.fail(err)
	}
	v, err := s.apply(d)
	if err != nil {
		return it.fail(err)
	}
	return v, true
}

// startInterleaved reads the reference object after control byte c.
func (it *Iterator) startInterleaved(c byte) error {
	b := it.data[it.pos+1:]
	if len(b) < 5 {
		return invalid("truncated reference object")
	}
	l := int(int32(binary.LittleEndian.Uint32(b)))
	if l < 5 || l > len(b) || b[l-1] != 0 {
		return invalid("malformed reference object")
	}
	ref := b[:l]
	it.rootType = bsoncore.TypeEmbeddedDocument
	if c == interleavedArrayRoot {
		it.rootType = bsoncore.TypeArray
	}
	it.ops = it.ops[:0]
	nLeaves := 0
	if err := it.discover(ref, nil, it.rootType, c != interleavedLegacy, &nLeaves, 0); err != nil {
		return err
	}
	if nLeaves == 0 {
		return invalid("reference object without scalars")
	}
	if cap(it.leaves) < nLeaves {
		it.leaves = append(it.leaves[:cap(it.leaves)], make([]stream, nLeaves-cap(it.leaves))...)
	}
	it.leaves = it.leaves[:nLeaves]
	if err := it.initLeaves(ref, c != interleavedLegacy); err != nil {
		return err
	}
	it.pos += 1 + l
	if it.pos >= len(it.data) || it.data[it.pos] == 0 {
		return invalid("interleaved mode without objects")
	}
	it.inter = true
	return nil
}

// discover lists the enter/scalar/exit steps of the reference object.
func (it *Iterator) discover(doc []byte, name []byte, typ bsoncore.Type, arrays bool, leaf *int, depth int) error {
	if depth > 200 {
		return invalid("reference object nested too deep")
	}
	it.ops = append(it.ops, op{kind: opEnter, typ: typ, name: name, allowEmpty: len(doc) == 5})
	err := walk(doc, func(t bsoncore.Type, key, val []byte) error {
		if t == bsoncore.TypeEmbeddedDocument || (arrays && t == bsoncore.TypeArray) {
			return it.discover(val, key, t, arrays, leaf, depth+1)
		}
		it.ops = append(it.ops, op{kind: opScalar, name: key, leaf: *leaf})
		*leaf++
		return nil
	})
	if err != nil {
		return err
	}
	it.ops = append(it.ops, op{kind: opExit, typ: typ, name: name, allowEmpty: len(doc) == 5})
	return nil
}

// initLeaves loads each leaf's value as its stream's starting literal.
func (it *Iterator) initLeaves(ref []byte, arrays bool) error {
	i := 0
	var visit func(doc []byte) error
	visit = func(doc []byte) error {
		return walk(doc, func(t bsoncore.Type, key, val []byte) error {
			if t == bsoncore.TypeEmbeddedDocument || (arrays && t == bsoncore.TypeArray) {
				return visit(val)
			}
			it.leaves[i].resetLiteral(bsoncore.Value{Type: t, Data: val})
			i++
			return nil
		})
	}
	return visit(ref)
}

// walk calls f for each element of document doc.
func walk(doc []byte, f func(t bsoncore.Type, key, val []byte) error) error {
	if len(doc) < 5 {
		return invalid("malformed document")
	}
	p := 4
	end := len(doc) - 1
	for p < end {
		t := bsoncore.Type(doc[p])
		k := indexZero(doc[:end], p+1)
		if k < 0 {
			return invalid("malformed field name")
		}
		n, ok := valueSize(t, doc[k+1:end])
		if !ok {
			return invalid("malformed element")
		}
		if err := f(t, doc[p+1:k], doc[k+1:k+1+n]); err != nil {
			return err
		}
		p = k + 1 + n
	}
	if p != end || doc[end] != 0 {
		return invalid("malformed document end")
	}
	return nil
}

func (it *Iterator) nextInterleaved() (bsoncore.Value, bool) {
	it.cur ^= 1
	obj := it.objs[it.cur][:0]
	it.stack = it.stack[:0]
	for _, o := range it.ops {
		switch o.kind {
		case opEnter:
			h := len(obj)
			if len(it.stack) > 0 {
				obj = append(obj, byte(o.typ))
				obj = append(obj, o.name...)
				obj = append(obj, 0)
			}
			it.stack = append(it.stack, frame{header: h, size: len(obj)})
			obj = append(obj, 0, 0, 0, 0)
		case opExit:
			f := it.stack[len(it.stack)-1]
			it.stack = it.stack[:len(it.stack)-1]
			if !o.allowEmpty && len(obj) == f.size+4 {
				obj = obj[:f.header]
				continue
			}
			obj = append(obj, 0)
			binary.LittleEndian.PutUint32(obj[f.size:], uint32(len(obj)-f.size))
		case opScalar:
			s := &it.leaves[o.leaf]
			var v bsoncore.Value
			var err error
			if s.exhausted() {
				if it.pos >= len(it.data) {
					it.objs[it.cur] = obj
					return it.fail(invalid("no end of interleaved objects"))
				}
				c := it.data[it.pos]
				switch {
				case c == 0:
					it.objs[it.cur] = obj
					if o.leaf != 0 {
						return it.fail(invalid("interleaved objects end in the middle of an object"))
					}
					for i := 1; i < len(it.leaves); i++ {
						if !it.leaves[i].exhausted() {
							return it.fail(invalid("interleaved streams of unequal length"))
						}
					}
					it.pos++
					it.exitInterleaved()
					return it.Next()
				case isLiteralControl(c):
					var n int
					v, n, err = literalAt(it.data[it.pos:])
					if err == nil {
						it.pos += n
						s.resetLiteral(v)
					}
				default:
					err = it.loadControl(s, c)
					if err == nil {
						var d s8val
						d, err = s.nextDelta()
						if err == nil {
							v, err = s.apply(d)
						}
					}
				}
			} else {
				var d s8val
				d, err = s.nextDelta()
				if err == nil {
					v, err = s.apply(d)
				}
			}
			if err != nil {
				it.objs[it.cur] = obj
				return it.fail(err)
			}
			if v.Type != 0 {
				obj = append(obj, byte(v.Type))
				obj = append(obj, o.name...)
				obj = append(obj, 0)
				obj = append(obj, v.Data...)
			}
		}
	}
	it.objs[it.cur] = obj
	if len(obj) == 0 {
		return bsoncore.Value{}, true
	}
	return bsoncore.Value{Type: it.rootType, Data: obj}, true
}

// exitInterleaved returns to regular mode; the last object decoded is the
// value a zero delta repeats.
func (it *Iterator) exitInterleaved() {
	it.inter = false
	prev := it.objs[it.cur^1]
	last := bsoncore.Value{}
	if len(prev) > 0 {
		last = bsoncore.Value{Type: it.rootType, Data: prev}
	}
	it.reg.resetLiteral(last)
	it.reg.kind = kindRepeat
}

// Column is one BSONColumn binary (the payload of BinData subtype 7).
type Column []byte

// Iterator returns an iterator over c.
func (c Column) Iterator() *Iterator {
	it := new(Iterator)
	it.Reset(c)
	return it
}

// Len decodes the column and returns its number of values, skips included.
func (c Column) Len() (int, error) {
	var it Iterator
	it.Reset(c)
	n := 0
	for _, ok := it.Next(); ok; _, ok = it.Next() {
		n++
	}
	return n, it.Err()
}

// Decode returns every value of column data (Type 0 for a skip), each with
// bytes of its own.
func Decode(data []byte) ([]bsoncore.Value, error) {
	var it Iterator
	it.Reset(data)
	var out []bsoncore.Value
	for v, ok := it.Next(); ok; v, ok = it.Next() {
		if v.Type != 0 {
			v.Data = append([]byte(nil), v.Data...)
		}
		out = append(out, v)
	}
	return out, it.Err()
}
