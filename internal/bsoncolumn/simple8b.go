package bsoncolumn

import (
	"errors"
	"math/bits"
	"sort"
)

// Simple-8b as mongod's BSONColumn writes it. A block is one little-endian
// 64-bit word. Its low nibble chooses how the other 60 bits are cut into
// equal slots, filled from the low end up. A slot of all ones is a missing
// value (a skip). Nibble 15 is a run: the next nibble n says the value before
// it repeats (n+1)*120 times. Nibbles 7 and 8 leave 4 bits unused in the base
// layout, so there the second nibble may pick an extended layout whose slots
// carry a count of trailing zeros in their low bits (counted in bits for 7, in
// nibbles for 8); slots then start at bit 8.

// layout describes one way of cutting a block into slots.
type layout struct {
	sel   uint8 // low nibble
	ext   uint8 // second nibble for selectors 7 and 8 (0: base layout)
	n     uint8 // values per block
	bits  uint8 // value bits per slot, without the count
	cbits uint8 // bits of the trailing-zero count in a slot
	mult  uint8 // zeros per unit of the count
	start uint8 // bit of the first slot
}

const (
	rleSelector = 15
	rleUnit     = 120
	rleMaxUnits = 16
)

var baseBits = [15]uint8{0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 60}
var baseCount = [15]uint8{0, 60, 30, 20, 15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1}

// Extended layouts of selector 7 (second nibble 1..9), of selector 8 with a
// 4-bit count (1..7) and of selector 8 with a 5-bit count (8..13).
var ext7Bits = [9]uint8{2, 3, 4, 5, 7, 10, 14, 24, 52}
var ext8SmallBits = [7]uint8{4, 5, 7, 10, 14, 24, 52}
var ext8LargeBits = [6]uint8{4, 6, 9, 13, 23, 51}

// decodeTable[sel][ext] for selectors 7 and 8, decodeTable[sel][0] otherwise.
// n == 0 marks an invalid block.
var decodeTable [16][16]layout

// packOrder lists every layout, most values per block first.
var packOrder []layout

func init() {
	for s := uint8(1); s <= 14; s++ {
		l := layout{sel: s, n: baseCount[s], bits: baseBits[s], start: 4}
		if s == 7 || s == 8 {
			l.start = 8
		}
		decodeTable[s][0] = l
		packOrder = append(packOrder, l)
	}
	add := func(sel, ext, bits, cbits, mult uint8) {
		slot := bits + cbits
		l := layout{sel: sel, ext: ext, n: 56 / slot, bits: bits, cbits: cbits, mult: mult, start: 8}
		decodeTable[sel][ext] = l
		packOrder = append(packOrder, l)
	}
	for i, b := range ext7Bits {
		add(7, uint8(i+1), b, 4, 1)
	}
	for i, b := range ext8SmallBits {
		add(8, uint8(i+1), b, 4, 4)
	}
	for i, b := range ext8LargeBits {
		add(8, uint8(i+8), b, 5, 4)
	}
	sort.SliceStable(packOrder, func(i, j int) bool { return packOrder[i].n > packOrder[j].n })
}

// u128 is an unsigned 128-bit value; 64-bit streams leave hi zero.
type u128 struct{ lo, hi uint64 }

func (v u128) shr(n uint) u128 {
	switch {
	case n == 0:
		return v
	case n >= 128:
		return u128{}
	case n >= 64:
		return u128{lo: v.hi >> (n - 64)}
	default:
		return u128{lo: v.lo>>n | v.hi<<(64-n), hi: v.hi >> n}
	}
}

func (v u128) shl(n uint) u128 {
	switch {
	case n == 0:
		return v
	case n >= 128:
		return u128{}
	case n >= 64:
		return u128{hi: v.lo << (n - 64)}
	default:
		return u128{lo: v.lo << n, hi: v.hi<<n | v.lo>>(64-n)}
	}
}

func (v u128) trailingZeros() uint {
	if v.lo != 0 {
		return uint(bits.TrailingZeros64(v.lo))
	}
	if v.hi != 0 {
		return 64 + uint(bits.TrailingZeros64(v.hi))
	}
	return 0
}

func add128(a, b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{lo, hi}
}

func sub128(a, b u128) u128 {
	lo, br := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, br)
	return u128{lo, hi}
}

// zigzag64 moves the sign to the low bit so small negatives stay small.
func zigzag64(v int64) uint64   { return uint64(v)<<1 ^ uint64(v>>63) }
func unzigzag64(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

func zigzag128(v u128) u128 {
	sign := uint64(int64(v.hi) >> 63)
	s := v.shl(1)
	return u128{s.lo ^ sign, s.hi ^ sign}
}

func unzigzag128(v u128) u128 {
	neg := -(v.lo & 1)
	s := v.shr(1)
	return u128{s.lo ^ neg, s.hi ^ neg}
}

// slotFor returns the slot bits for v under l, or false if v does not fit.
func (l layout) slotFor(v u128) (uint64, bool) {
	if l.cbits == 0 {
		if v.hi != 0 || v.lo >= 1<<l.bits-1 {
			return 0, false
		}
		return v.lo, true
	}
	maxc := uint(1)<<l.cbits - 1
	c := v.trailingZeros() / uint(l.mult)
	if c > maxc {
		c = maxc
	}
	s := v.shr(c * uint(l.mult))
	if s.hi != 0 || s.lo > 1<<l.bits-1 {
		return 0, false
	}
	if s.lo == 1<<l.bits-1 && c == maxc {
		return 0, false // would read as a skip
	}
	return s.lo<<l.cbits | uint64(c), true
}

// encodable reports whether v fits some Simple-8b slot.
func encodable(v u128) bool {
	if v.hi == 0 && v.lo < 1<<60-1 {
		return true
	}
	for _, l := range packOrder[len(packOrder)-4:] {
		if _, ok := l.slotFor(v); ok {
			return true
		}
	}
	return false
}

// s8val is one Simple-8b input: a value or a skip.
type s8val struct {
	v    u128
	skip bool
}

// packer turns values into Simple-8b blocks. prev is the last value of the
// last block written in the same run, which a run block repeats; before the
// first block of a run a decoder repeats 0 (mongod's builder starts runs of
// zero deltas that way too).
type packer struct {
	prev    s8val
	hasPrev bool
}

func newPacker() packer { return packer{hasPrev: true} }

// pack appends the blocks for vals to dst. Every value must be encodable.
func (p *packer) pack(dst []uint64, vals []s8val) []uint64 {
	i := 0
	for i < len(vals) {
		if p.hasPrev {
			run := 0
			for j := i; j < len(vals) && run < rleUnit*rleMaxUnits && vals[j] == p.prev; j++ {
				run++
			}
			if run >= rleUnit {
				units := run / rleUnit
				dst = append(dst, rleSelector|uint64(units-1)<<4)
				i += units * rleUnit
				continue
			}
		}
		rest := len(vals) - i
		before := i
	layouts:
		for _, l := range packOrder {
			n := int(l.n)
			if n > rest {
				continue
			}
			w := uint64(l.sel) | uint64(l.ext)<<4
			shift := uint(l.start)
			slotBits := uint(l.bits + l.cbits)
			skipSlot := uint64(1)<<slotBits - 1
			for k := 0; k < n; k++ {
				x := vals[i+k]
				slot := skipSlot
				if !x.skip {
					s, ok := l.slotFor(x.v)
					if !ok {
						continue layouts
					}
					slot = s
				}
				w |= slot << shift
				shift += slotBits
			}
			dst = append(dst, w)
			p.prev, p.hasPrev = vals[i+n-1], true
			i += n
			break
		}
		if i == before {
			panic("bsoncolumn: value too wide for Simple-8b")
		}
	}
	return dst
}

var errBadBlock = errors.New("bsoncolumn: invalid Simple-8b block")

// decodeLayout returns the layout of block w, or false for an invalid one.
// Run blocks are the caller's.
func decodeLayout(w uint64) (layout, bool) {
	sel := w & 15
	var l layout
	if sel == 7 || sel == 8 {
		l = decodeTable[sel][(w>>4)&15]
	} else {
		l = decodeTable[sel][0]
	}
	return l, l.n != 0
}

// unpack64 decodes a non-run block into out and returns the count and a
// mask of skipped positions.
func unpack64(w uint64, out *[60]uint64) (int, uint64, error) {
	l, ok := decodeLayout(w)
	if !ok {
		return 0, 0, errBadBlock
	}
	slotBits := uint(l.bits + l.cbits)
	mask := uint64(1)<<slotBits - 1
	shift := uint(l.start)
	n := int(l.n)
	var skips uint64
	if l.cbits == 0 {
		for k := 0; k < n; k++ {
			s := (w >> shift) & mask
			if s == mask {
				skips |= 1 << k
			}
			out[k] = s
			shift += slotBits
		}
		return n, skips, nil
	}
	cmask := uint64(1)<<l.cbits - 1
	for k := 0; k < n; k++ {
		s := (w >> shift) & mask
		if s == mask {
			skips |= 1 << k
		}
		zeros := uint((s&cmask)*uint64(l.mult)) % 64
		out[k] = (s >> l.cbits) << zeros
		shift += slotBits
	}
	return n, skips, nil
}

// unpack128 is unpack64 for 128-bit streams.
func unpack128(w uint64, out *[60]u128) (int, uint64, error) {
	l, ok := decodeLayout(w)
	if !ok {
		return 0, 0, errBadBlock
	}
	slotBits := uint(l.bits + l.cbits)
	mask := uint64(1)<<slotBits - 1
	cmask := uint64(1)<<l.cbits - 1
	shift := uint(l.start)
	n := int(l.n)
	var skips uint64
	for k := 0; k < n; k++ {
		s := (w >> shift) & mask
		if s == mask {
			skips |= 1 << k
		}
		zeros := uint((s & cmask) * uint64(l.mult))
		out[k] = u128{lo: s >> l.cbits}.shl(zeros)
		shift += slotBits
	}
	return n, skips, nil
}

// blockCount returns how many values block w holds, runs included.
func blockCount(w uint64) (int, error) {
	if w&15 == rleSelector {
		return int((w>>4)&15+1) * rleUnit, nil
	}
	l, ok := decodeLayout(w)
	if !ok {
		return 0, errBadBlock
	}
	return int(l.n), nil
}
