package collation

import (
	"sync"

	"github.com/lodedb/lode/internal/bsonutil"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// Collator compares strings under one collation. It is safe for
// concurrent use: x/text collators keep per-call state, so each call
// borrows one from a pool.
type Collator struct {
	spec Spec
	tag  language.Tag
	// cased is set when Lode builds the case part of the key itself
	// (caseFirst "upper"/"lower", caseLevel below strength 3; see
	// casekey.go); the x/text collator then has no case level.
	cased *caseKeyer
	pool  sync.Pool
}

type worker struct {
	c   *collate.Collator
	buf collate.Buffer
	raw []byte    // the unescaped key under construction (cased keys)
	it  norm.Iter // the NFD iterator of cased keys
}

var cache sync.Map // Spec -> *Collator

// New returns the collator of a parsed spec; nil for nil (simple).
// Collators are immutable and shared per spec.
func New(s *Spec) *Collator {
	if s == nil {
		return nil
	}
	if c, ok := cache.Load(*s); ok {
		return c.(*Collator)
	}
	c := &Collator{spec: *s, tag: s.tag()}
	if s.ownsCase() {
		c.cased = newCaseKeyer(s)
	}
	c.pool.New = func() any { return &worker{c: collate.New(c.tag)} }
	got, _ := cache.LoadOrStore(*s, c)
	return got.(*Collator)
}

// ownsCase reports whether Lode computes the case part of the spec's
// keys itself, because x/text has no caseFirst and its case level also
// weighs accents and other tertiary differences.
func (s *Spec) ownsCase() bool {
	return s.CaseFirst != "off" || (s.CaseLevel && s.Strength < 3)
}

// tag builds the BCP 47 tag carrying the options as -u- extension keys
// (ks strength, kc caseLevel, kn numeric, ka alternate, kb backwards).
// caseLevel is left to casekey.go when the spec owns its case.
func (s *Spec) tag() language.Tag {
	return tagFor(s.Locale, s.Strength, s.CaseLevel && !s.ownsCase(), s.NumericOrdering, s.Alternate == "shifted", s.Backwards)
}

// tagFor builds the tag of locale with the given options.
func tagFor(locale string, strength int, caseLevel, numeric, shifted, backwards bool) language.Tag {
	base := locales[locale]
	ext := []string{}
	switch strength {
	case 1:
		ext = append(ext, "ks-level1")
	case 2:
		ext = append(ext, "ks-level2")
	case 4, 5:
		// Level 5 is level 4 plus the identical level Key appends.
		ext = append(ext, "ks-level4")
	}
	if caseLevel {
		ext = append(ext, "kc-true")
	}
	if numeric {
		ext = append(ext, "kn-true")
	}
	if shifted {
		ext = append(ext, "ka-shifted")
	}
	if backwards {
		ext = append(ext, "kb-true")
	}
	t := language.MustParse(base)
	if len(ext) == 0 {
		return t
	}
	sep := "-u-"
	if hasU(base) {
		sep = "-"
	}
	full := base + sep
	for i, e := range ext {
		if i > 0 {
			full += "-"
		}
		full += e
	}
	if ft, err := language.Parse(full); err == nil {
		return ft
	}
	return t
}

func hasU(tag string) bool {
	for i := 0; i+3 <= len(tag); i++ {
		if tag[i:i+3] == "-u-" {
			return true
		}
	}
	return false
}

// Spec returns the collator's normalised spec.
func (c *Collator) Spec() *Spec { s := c.spec; return &s }

// Key returns the sort key of s: bytes whose order is the collation's,
// with no NUL byte (so that the key is itself a valid BSON string).
func (c *Collator) Key(dst, s []byte) []byte {
	w := c.pool.Get().(*worker)
	k := w.c.Key(&w.buf, s)
	if c.cased != nil {
		w.raw = c.cased.build(w.raw[:0], k, s, c.spec.Strength, &w.it)
		k = w.raw
	}
	dst = escape(dst, k)
	if c.spec.Strength == 5 {
		// ICU's identical level: the NFD code points.
		dst = append(dst, 0x01, 0x01)
		dst = escape(dst, norm.NFD.Bytes(s))
	}
	w.buf.Reset()
	c.pool.Put(w)
	return dst
}

// escape appends k with bytes 0 and 1 written as 1,1 and 1,2: an
// order-preserving, NUL-free encoding.
func escape(dst, k []byte) []byte {
	for _, b := range k {
		if b <= 1 {
			dst = append(dst, 1, b+1)
		} else {
			dst = append(dst, b)
		}
	}
	return dst
}

// CompareStrings compares two strings under the collation.
func (c *Collator) CompareStrings(a, b []byte) int {
	var x, y [64]byte
	ka := c.Key(x[:0], a)
	kb := c.Key(y[:0], b)
	return bytesCompare(ka, kb)
}

func bytesCompare(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// Transform rewrites v for comparison under c: every string, including
// those nested in documents and arrays, becomes its sort key. Values with
// no string are returned as they are. A nil c returns v.
func (c *Collator) Transform(v bsoncore.Value) bsoncore.Value {
	if c == nil {
		return v
	}
	switch v.Type {
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		// A symbol compares as the string it holds.
		s := v.Data[4 : len(v.Data)-1]
		return bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, string(c.Key(nil, s)))}
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		if !hasString(v.Data) {
			return v
		}
		return bsoncore.Value{Type: v.Type, Data: c.transformDoc(v.Data)}
	}
	return v
}

func (c *Collator) transformDoc(d []byte) []byte {
	elems, err := bsoncore.Document(d).Elements()
	if err != nil {
		return d
	}
	idx, out := bsoncore.AppendDocumentStart(nil)
	for _, e := range elems {
		out = bsoncore.AppendValueElement(out, e.Key(), c.Transform(e.Value()))
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

func hasString(d []byte) bool {
	elems, err := bsoncore.Document(d).Elements()
	if err != nil {
		return false
	}
	for _, e := range elems {
		v := e.Value()
		switch v.Type {
		case bsoncore.TypeString, bsoncore.TypeSymbol:
			return true
		case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
			if hasString(v.Data) {
				return true
			}
		}
	}
	return false
}

// HasString reports whether v is or contains a string: the values whose
// comparison a collation changes.
func HasString(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeString, bsoncore.TypeSymbol:
		return true
	case bsoncore.TypeEmbeddedDocument, bsoncore.TypeArray:
		return hasString(v.Data)
	}
	return false
}

// Compare compares two BSON values in MongoDB's order under c (binary
// order when c is nil).
func (c *Collator) Compare(a, b bsoncore.Value) int {
	if c == nil {
		return bsonutil.Compare(a, b)
	}
	return bsonutil.Compare(c.Transform(a), c.Transform(b))
}
