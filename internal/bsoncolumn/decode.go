package bsoncolumn

import (
	"encoding/binary"
	"errors"
	"math"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// ErrInvalid is wrapped by every decoding error.
var ErrInvalid = errors.New("bsoncolumn: invalid BSONColumn binary")

func invalid(msg string) error { return &decodeError{msg} }

type decodeError struct{ msg string }

func (e *decodeError) Error() string { return "bsoncolumn: invalid BSONColumn binary: " + e.msg }
func (e *decodeError) Unwrap() error { return ErrInvalid }

const (
	interleavedLegacy    = 0xF0 // objects, arrays are scalars
	interleavedObject    = 0xF1 // objects, arrays interleaved too
	interleavedArrayRoot = 0xF2 // as 0xF1 with an array at the root
)

func isLiteralControl(c byte) bool { return c&0xE0 == 0 || c == 0xFF || c == 0x7F }
func isInterleavedControl(c byte) bool {
	return c == interleavedLegacy || c == interleavedObject || c == interleavedArrayRoot
}

// stream decodes one sequence of values: the whole column in regular mode,
// one leaf of the reference object in interleaved mode.
type stream struct {
	last     bsoncore.Value // last value, Type 0 before any
	scratch  []byte         // holds computed values
	kind     int
	dod      bool
	scale    uint8
	enc      int64 // last value as an integer, or last delta for delta of delta
	encDod   int64 // last value as an integer for delta of delta
	enc128   u128
	enc128ok bool // enc128 holds last's integer (computed on the first delta)

	blocks   []byte // blocks left in the current control
	n, i     int    // values in the current block and the next one's index
	skips    uint64
	vals     [60]uint64
	vals128  [60]u128
	rleLeft  int
	prev     s8val // last Simple-8b value before the current block, repeated by run blocks
	inBlocks bool  // a control of Simple-8b blocks was loaded since the last literal
	// prev is the current block's last slot rather than s.prev (kept lazily
	// so the per-value path does not copy it).
	prevInBlock bool
}

// settlePrev makes s.prev the last value read before a new block is loaded.
func (s *stream) settlePrev() {
	if !s.prevInBlock {
		return
	}
	s.prevInBlock = false
	k := s.n - 1
	switch {
	case s.skips&(1<<k) != 0:
		s.prev = s8val{skip: true}
	case s.kind == kind128:
		s.prev = s8val{v: s.vals128[k]}
	default:
		s.prev = s8val{v: u128{lo: s.vals[k]}}
	}
}

func (s *stream) resetLiteral(v bsoncore.Value) {
	s.last = v
	s.kind = typeKind(v.Type)
	s.dod = deltaOfDelta(v.Type)
	s.n, s.i, s.rleLeft, s.blocks = 0, 0, 0, nil
	s.inBlocks = false
	s.prev = s8val{}
	s.prevInBlock = false
	switch s.kind {
	case kind64:
		e := encode64(v)
		if s.dod {
			s.encDod, s.enc = e, 0
		} else {
			s.enc = e
		}
	case kind128:
		s.enc128ok = false
	}
}

// exhausted reports whether the current control's values are all read.
func (s *stream) exhausted() bool {
	return s.i >= s.n && s.rleLeft == 0 && len(s.blocks) == 0
}

// loadBlocks starts a control of Simple-8b blocks (control byte c).
func (s *stream) loadBlocks(c byte, blocks []byte) error {
	scale := scaleForControl[c>>4]
	if scale == 0xFF {
		return invalid("bad control byte")
	}
	if s.kind != kind128 && s.last.Type == bsoncore.TypeDouble {
		d := math.Float64frombits(binary.LittleEndian.Uint64(s.last.Data))
		e, ok := encodeDouble(d, scale)
		if !ok {
			return invalid("double cannot take the control's scale")
		}
		s.enc = e
	} else if scale != memoryAsInteger {
		return invalid("scaled control for a value that is not a double")
	}
	s.scale = scale
	s.settlePrev()
	s.blocks = blocks
	s.n, s.i, s.rleLeft = 0, 0, 0
	if !s.inBlocks {
		s.prev = s8val{}
		s.inBlocks = true
	}
	return nil
}

// nextDelta reads the next Simple-8b value of the current control; the
// caller has checked it is not exhausted.
func (s *stream) nextDelta() (s8val, error) {
	if s.rleLeft > 0 {
		s.rleLeft--
		return s.prev, nil
	}
	if s.i >= s.n {
		s.settlePrev()
		w := binary.LittleEndian.Uint64(s.blocks)
		s.blocks = s.blocks[8:]
		if w&15 == rleSelector {
			s.rleLeft = int((w>>4)&15+1)*rleUnit - 1
			s.n, s.i = 0, 0
			return s.prev, nil
		}
		var err error
		if s.kind == kind128 {
			s.n, s.skips, err = unpack128(w, &s.vals128)
		} else {
			s.n, s.skips, err = unpack64(w, &s.vals)
		}
		if err != nil {
			s.n = 0
			return s8val{}, err
		}
		s.i = 0
		s.prevInBlock = true
	}
	k := s.i
	s.i++
	switch {
	case s.skips&(1<<k) != 0:
		return s8val{skip: true}, nil
	case s.kind == kind128:
		return s8val{v: s.vals128[k]}, nil
	}
	return s8val{v: u128{lo: s.vals[k]}}, nil
}

// step64 applies the non-skip 64-bit Simple-8b value d.
func (s *stream) step64(d uint64) (bsoncore.Value, error) {
	if !s.dod && d == 0 {
		return s.last, nil
	}
	if s.kind != kind64 {
		return bsoncore.Value{}, invalid("non-zero delta for a type that only repeats")
	}
	s.enc += unzigzag64(d)
	v := s.enc
	if s.dod {
		s.encDod += s.enc
		v = s.encDod
	}
	return s.materialize64(v)
}

// apply turns Simple-8b value d into the next value (Type 0 for a skip).
func (s *stream) apply(d s8val) (bsoncore.Value, error) {
	if d.skip || s.last.Type == 0 {
		return bsoncore.Value{}, nil
	}
	if s.kind == kind128 {
		if d.v == (u128{}) {
			return s.last, nil
		}
		if !s.enc128ok {
			// As mongod: a literal too long to carry counts as 0.
			s.enc128, _ = encode128(s.last)
			s.enc128ok = true
		}
		s.enc128 = add128(s.enc128, unzigzag128(d.v))
		return s.materialize128()
	}
	return s.step64(d.v.lo)
}

// own makes s.scratch hold the bytes of s.last, so a new value can be
// written over them.
func (s *stream) own(size int) []byte {
	if cap(s.scratch) < size {
		s.scratch = make([]byte, size, max(size, 32))
	}
	buf := s.scratch[:size]
	if len(s.last.Data) > 0 && &s.last.Data[0] != &buf[0] {
		copy(buf, s.last.Data)
	}
	return buf
}

func (s *stream) materialize64(v int64) (bsoncore.Value, error) {
	t := s.last.Type
	if cap(s.scratch) < 32 {
		s.scratch = make([]byte, 32)
	}
	var buf []byte
	switch t {
	case bsoncore.TypeDouble:
		buf = s.scratch[:8]
		binary.LittleEndian.PutUint64(buf, math.Float64bits(decodeDouble(v, s.scale)))
	case bsoncore.TypeInt32:
		buf = s.scratch[:4]
		binary.LittleEndian.PutUint32(buf, uint32(v))
	case bsoncore.TypeInt64, bsoncore.TypeDateTime, bsoncore.TypeTimestamp:
		buf = s.scratch[:8]
		binary.LittleEndian.PutUint64(buf, uint64(v))
	case bsoncore.TypeBoolean:
		buf = s.scratch[:1]
		buf[0] = 0
		if v != 0 {
			buf[0] = 1
		}
	case bsoncore.TypeObjectID:
		buf = s.own(12)
		decodeOIDInto(buf, v)
	default:
		return bsoncore.Value{}, invalid("delta for a type without one")
	}
	s.last = bsoncore.Value{Type: t, Data: buf}
	return s.last, nil
}

func (s *stream) materialize128() (bsoncore.Value, error) {
	t := s.last.Type
	var buf []byte
	switch t {
	case bsoncore.TypeString, bsoncore.TypeJavaScript:
		var a [16]byte
		put128(a[:], s.enc128)
		n := 16
		for n > 0 && a[n-1] == 0 {
			n--
		}
		if cap(s.scratch) < 32 {
			s.scratch = make([]byte, 32)
		}
		buf = s.scratch[:n+5]
		binary.LittleEndian.PutUint32(buf, uint32(n+1))
		for i := 0; i < n; i++ {
			buf[4+i] = a[n-1-i]
		}
		buf[4+n] = 0
	case bsoncore.TypeBinary:
		n := len(s.last.Data) - 5
		if n > 16 || n < 0 {
			return bsoncore.Value{}, invalid("binary delta on more than 16 bytes")
		}
		buf = s.own(len(s.last.Data))
		var a [16]byte
		put128(a[:], s.enc128)
		copy(buf[5:], a[:n])
	case bsoncore.TypeDecimal128:
		buf = s.own(16)
		put128(buf, s.enc128)
	default:
		return bsoncore.Value{}, invalid("128-bit delta for a type without one")
	}
	s.last = bsoncore.Value{Type: t, Data: buf}
	return s.last, nil
}

// literalAt reads the literal element at data[0:] (type byte, empty name,
// value) and returns its value and size.
func literalAt(data []byte) (bsoncore.Value, int, error) {
	if len(data) < 2 || data[1] != 0 {
		return bsoncore.Value{}, 0, invalid("literal without an empty field name")
	}
	t := bsoncore.Type(data[0])
	n, ok := valueSize(t, data[2:])
	if !ok {
		return bsoncore.Value{}, 0, invalid("truncated or malformed literal")
	}
	return bsoncore.Value{Type: t, Data: data[2 : 2+n]}, 2 + n, nil
}

// valueSize returns the length of a value of type t at the start of b.
func valueSize(t bsoncore.Type, b []byte) (int, bool) {
	var n int
	switch t {
	case bsoncore.TypeDouble, bsoncore.TypeInt64, bsoncore.TypeDateTime, bsoncore.TypeTimestamp:
		n = 8
	case bsoncore.TypeInt32:
		n = 4
	case bsoncore.TypeBoolean:
		// BSON's booleans are 0 or 1; any other byte is malformed (and
		// would not survive a delta, which carries a boolean as 0 or 1).
		if len(b) < 1 || b[0] > 1 {
			return 0, false
		}
		n = 1
	case bsoncore.TypeObjectID:
		n = 12
	case bsoncore.TypeDecimal128:
		n = 16
	case bsoncore.TypeNull, bsoncore.TypeUndefined, bsoncore.TypeMinKey, bsoncore.TypeMaxKey:
		n = 0
	case bsoncore.TypeString, bsoncore.TypeJavaScript, bsoncore.TypeSymbol:
		if len(b) < 4 {
			return 0, false
		}
		l := int(int32(binary.LittleEndian.Uint32(b)))
		if l < 1 || l > len(b)-4 || b[3+l] != 0 {
			return 0, false
		}
		n = 4 + l
	case bsoncore.TypeBinary:
		if len(b) < 5 {
			return 0, false
		}
		l := int(int32(binary.LittleEndian.Uint32(b)))
		if l < 0 || l > len(b)-5 {
			return 0, false
		}
		n = 5 + l
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray, bsoncore.TypeCodeWithScope:
		if len(b) < 4 {
			return 0, false
		}
		l := int(int32(binary.LittleEndian.Uint32(b)))
		if l < 5 || l > len(b) {
			return 0, false
		}
		n = l
	case bsoncore.TypeRegex:
		i := indexZero(b, 0)
		if i < 0 {
			return 0, false
		}
		j := indexZero(b, i+1)
		if j < 0 {
			return 0, false
		}
		n = j + 1
	case bsoncore.TypeDBPointer:
		if len(b) < 4 {
			return 0, false
		}
		l := int(int32(binary.LittleEndian.Uint32(b)))
		if l < 1 || l > len(b)-16 {
			return 0, false
		}
		n = 4 + l + 12
	default:
		return 0, false
	}
	if n > len(b) {
		return 0, false
	}
	return n, true
}

func indexZero(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == 0 {
			return i
		}
	}
	return -1
}
