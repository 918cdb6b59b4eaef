package collation

import (
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/collate"
	"golang.org/x/text/unicode/norm"
)

// A caseKeyer builds the keys of a collation whose case ordering x/text
// cannot give: caseFirst "upper" or "lower", and caseLevel at strength 1
// or 2. ICU puts case in a level of its own after the secondary one when
// caseLevel is on, and makes case the most significant part of the
// tertiary level when caseFirst is set; both come out as this layout of
// the unescaped key:
//
//	primary 00 00 secondary 00 00 case [00 00 tertiary [00 quaternary]]
//
// where primary, secondary and tertiary onward are cut from x/text's own
// key (collate.Collator.Key writes the primary weights as 2-byte units,
// or 3-byte units whose first byte has its top bit set, then 00 00 and
// the secondary weights as 2-byte units, then 00 00 and one byte per
// tertiary weight, then 00 and the quaternary weights), the secondary
// part is absent at strength 1, and the tertiary part below strength 3.
//
// The case part has one weight per primary weight of each character of
// the string's NFD form, in order: the character's case, upper
// (Unicode's Uppercase property, or titlecase) or not (lowercase and
// uncased characters share ICU's "normal" case), weighted 1 for the case
// that sorts first and 2 for the other. Comparison, sort and index keys
// all use this one key, so they agree.
type caseKeyer struct {
	upperFirst bool
	ascii      [utf8.RuneSelf]uint8 // primary weights of each ASCII character
	counts     sync.Map             // rune -> uint8, for the others met
	cached     atomic.Int32         // entries in counts, at most maxCached
	pool       sync.Pool            // *countWorker
}

// maxCached bounds the characters a keyer remembers beyond ASCII, so
// that text in many scripts cannot grow it without limit; the others
// are counted on each use.
const maxCached = 1 << 14

// countWorker is a primary-strength x/text collator (not safe for
// concurrent use) with its buffer.
type countWorker struct {
	c   *collate.Collator
	buf collate.Buffer
}

// newCaseKeyer returns the keyer of s. Its primary-strength collator has
// s's locale and alternate handling, so that characters ignorable in s
// (combining marks; spaces and punctuation when shifted) count no
// primary weight, but no numeric ordering, so that each digit counts one.
func newCaseKeyer(s *Spec) *caseKeyer {
	tag := tagFor(s.Locale, 1, false, false, s.Alternate == "shifted", false)
	k := &caseKeyer{upperFirst: s.CaseFirst == "upper"}
	k.pool.New = func() any { return &countWorker{c: collate.New(tag)} }
	w := k.pool.Get().(*countWorker)
	for r := rune(0); r < utf8.RuneSelf; r++ {
		k.ascii[r] = w.count(r)
	}
	k.pool.Put(w)
	return k
}

// count returns the number of primary weights x/text gives r alone.
func (w *countWorker) count(r rune) uint8 {
	var b [utf8.UTFMax]byte
	key := w.c.Key(&w.buf, b[:utf8.EncodeRune(b[:], r)])
	n := 0
	for i := 0; i < len(key); i += primaryUnit(key[i]) {
		n++
	}
	w.buf.Reset()
	return uint8(min(n, 255))
}

// primaries returns the number of primary weights of r.
func (k *caseKeyer) primaries(r rune) uint8 {
	if r < utf8.RuneSelf {
		return k.ascii[r]
	}
	if n, ok := k.counts.Load(r); ok {
		return n.(uint8)
	}
	w := k.pool.Get().(*countWorker)
	n := w.count(r)
	k.pool.Put(w)
	if k.cached.Load() < maxCached && k.cached.Add(1) <= maxCached {
		k.counts.Store(r, n)
	}
	return n
}

// primaryUnit is the length of the primary weight starting with byte b
// in an x/text key.
func primaryUnit(b byte) int {
	if b&0x80 != 0 {
		return 3
	}
	return 2
}

// cutPrimary splits an x/text key after its primary weights, dropping
// the 00 00 that ends them (a 2-byte weight is never 00 00).
func cutPrimary(k []byte) (level, rest []byte) {
	for i := 0; i+1 < len(k); i += primaryUnit(k[i]) {
		if k[i] == 0 && k[i+1] == 0 {
			return k[:i], k[i+2:]
		}
	}
	return k, nil
}

// cutSecondary splits the rest of an x/text key after its secondary
// weights (2-byte units, never 00 00), dropping the 00 00 that ends them.
func cutSecondary(k []byte) (level, rest []byte) {
	for i := 0; i+1 < len(k); i += 2 {
		if k[i] == 0 && k[i+1] == 0 {
			return k[:i], k[i+2:]
		}
	}
	return k, nil
}

// build appends to dst the unescaped key of s from x/text's key k of s
// at the collation's strength (without x/text's case level); it is the
// caller's iterator, reused across calls.
func (k *caseKeyer) build(dst, key, s []byte, strength int, it *norm.Iter) []byte {
	prim, rest := cutPrimary(key)
	dst = append(dst, prim...)
	if strength >= 2 {
		var sec []byte
		sec, rest = cutSecondary(rest)
		dst = append(dst, 0, 0)
		dst = append(dst, sec...)
	}
	dst = append(dst, 0, 0)
	dst = k.appendCase(dst, s, it)
	if strength >= 3 {
		dst = append(dst, 0, 0)
		dst = append(dst, rest...)
	}
	return dst
}

// appendCase appends the case weights of s (see caseKeyer).
func (k *caseKeyer) appendCase(dst, s []byte, it *norm.Iter) []byte {
	it.Init(norm.NFD, s)
	for !it.Done() {
		seg := it.Next()
		for len(seg) > 0 {
			r, size := utf8.DecodeRune(seg)
			seg = seg[size:]
			n := k.primaries(r)
			if n == 0 {
				continue
			}
			w := byte(2)
			if isUpper(r) == k.upperFirst {
				w = 1
			}
			for ; n > 0; n-- {
				dst = append(dst, w)
			}
		}
	}
	return dst
}

// isUpper reports whether r sorts as uppercase: Unicode's Uppercase
// property (which includes circled and other letter-like capitals) or
// titlecase.
func isUpper(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsTitle(r) || unicode.Is(unicode.Other_Uppercase, r)
}
