// Package indexkey generates the keys of an index (internal/catalog's
// Index descriptor) for a document: btree keys with multikey expansion,
// 2dsphere and 2d keys, hashed keys and text index entries, as
// keystrings with their type bits; and rebuilds the field values behind
// a key for duplicate key errors. It does not read or write storage.
package indexkey

import (
	"bytes"
	"sort"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/catalog"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/keystring"
)

// Index key generation follows MongoDB's btree key generator. Every field
// of the key pattern is walked from the document down its path until it
// ends (a value, or null when the path is missing) or meets an array. All
// fields that meet an array at one level must meet the same array (else
// "cannot index parallel arrays"); that array is then expanded element by
// element, once: for each element, the fields whose path ends at the array
// take the element itself, and the others continue their walk inside the
// element (a scalar element, or one lacking the subfield, gives null). So
// {"m.k": 1, "m.v": 1} over m: [{k, v} x 12] yields 12 keys, one per
// element, not the 144 of a cross product. An empty array gives undefined
// to the fields ending at it and null to those going through it. Arrays at
// different paths can only be met at different levels (nested), where the
// expansion recurses. Duplicate keys are removed.

// Generator generates index keys, keeping reusable scratch space between
// calls so that a warm Generator does not allocate for btree keys. It is
// not safe for concurrent use; the zero value is ready.
type Generator struct {
	ix    *catalog.Index
	fixed []bsoncore.Value // the value of each field in the key being built
	pos   []int            // the next path part of each field to walk
	// stack holds, per recursion level, the fields still to walk (the
	// active list) and then (field, part after the array) pairs of the
	// fields that met the level's array.
	stack []int
	paths []string // array paths met, substrings of the fields' paths
	buf   []byte
	offs  []int
	keys  [][]byte
	tbuf  []byte
	tbs   [][]byte // type bits of keys[i]
	// heads[i] is the length of keys[i]'s first field (emit's keys alone;
	// empty for text and geo keys).
	heads []int
	// keepVals makes emit record the field values of every key in vals
	// (len(fields) per key), for duplicate key error messages.
	keepVals bool
	vals     []bsoncore.Value
}

var (
	nullValue      = bsoncore.Value{Type: bsoncore.TypeNull}
	undefinedValue = bsoncore.Value{Type: bsoncore.TypeUndefined}
	emptyDocument  = bsoncore.Document{5, 0, 0, 0, 0}
)

// Keys returns the distinct keystrings doc produces for ix (sorted),
// and the array paths that make them multikey. skip is true when the
// document has no entry (sparse with all fields missing, or outside the
// partial filter). The returned slices are valid until the next call on
// g; TypeBits(i) is the type bits of keys[i].
func (g *Generator) Keys(ix *catalog.Index, doc bsoncore.Document) (keys [][]byte, arrayPaths []string, skip bool, err error) {
	if ix.PartialFilter != nil && !ix.PartialFilter.Match(doc) {
		return nil, nil, true, nil
	}
	g.heads = g.heads[:0]
	if ix.Text != nil {
		if err := g.textKeys(ix, doc); err != nil {
			return nil, nil, false, err
		}
	} else if ix.HasGeo() {
		if err := g.generateGeo(ix, doc); err != nil {
			return nil, nil, false, err
		}
	} else if ix.HashedField() >= 0 {
		if err := g.generateHashed(ix, doc); err != nil {
			return nil, nil, false, err
		}
	} else if !g.flat(ix, doc) {
		if err := g.generate(ix, doc); err != nil {
			return nil, nil, false, err
		}
	}
	if len(g.offs) == 0 {
		return nil, nil, true, nil // sparse: every key lacked every field
	}
	g.keys, g.tbs = g.keys[:0], g.tbs[:0]
	for i := 0; i < len(g.offs); i += 4 {
		g.keys = append(g.keys, g.buf[g.offs[i]:g.offs[i+1]:g.offs[i+1]])
		g.tbs = append(g.tbs, g.tbuf[g.offs[i+2]:g.offs[i+3]:g.offs[i+3]])
	}
	if len(g.heads) != len(g.keys) {
		g.heads = g.heads[:0] // keys not made by emit
	}
	if len(g.keys) > 1 {
		sort.Stable(keySorter{g})
		w := 1
		for r := 1; r < len(g.keys); r++ {
			if !bytes.Equal(g.keys[r], g.keys[w-1]) {
				g.keys[w], g.tbs[w] = g.keys[r], g.tbs[r]
				if len(g.heads) > 0 {
					g.heads[w] = g.heads[r]
				}
				w++
			}
		}
		g.keys, g.tbs = g.keys[:w], g.tbs[:w]
		if len(g.heads) > 0 {
			g.heads = g.heads[:w]
		}
	}
	return g.keys, g.paths, false, nil
}

// flat encodes the single key of doc for an index whose fields are all
// top-level and none of whose values in doc is an array, the common case,
// without generate's walk. It returns false, having encoded nothing, when
// the index or doc needs the walk (a dotted path, a geo field, an array).
func (g *Generator) flat(ix *catalog.Index, doc bsoncore.Document) bool {
	fields := ix.Fields
	n := len(fields)
	if n > 64 {
		return false
	}
	for i := range fields {
		if f := &fields[i]; len(f.Parts) != 1 || f.Geo != "" || f.Hashed {
			return false
		}
	}
	if cap(g.fixed) < n {
		g.fixed = make([]bsoncore.Value, n)
	}
	g.fixed = g.fixed[:n]
	// One pass over doc's elements finds every field (an index of n
	// fields would otherwise walk the document n times); the first
	// element of a name is the field's, as bsonutil.LookupField finds.
	var met uint64 // bit i: field i found
	all := uint64(1)<<n - 1
	if len(doc) >= 5 {
		end := len(doc) - 1
		for p := 4; p < end && met != all; {
			el, ok := bsonutil.ElementAt(doc[:end], p)
			if !ok {
				break // malformed: the fields not met yet are missing
			}
			name := doc[el.Name:el.NameEnd]
			for i := range fields {
				if met&(1<<i) == 0 && string(name) == fields[i].Parts[0] {
					if el.Type == bsoncore.TypeArray {
						return false
					}
					g.fixed[i] = el.Value(doc)
					met |= 1 << i
				}
			}
			p = el.End
		}
	}
	notFound := 0
	if met != all {
		for i := range g.fixed {
			if met&(1<<i) == 0 {
				g.fixed[i] = nullValue
				notFound++
			}
		}
	}
	g.ix = ix
	g.stack, g.paths = g.stack[:0], g.paths[:0]
	g.buf, g.offs, g.tbuf, g.vals = g.buf[:0], g.offs[:0], g.tbuf[:0], g.vals[:0]
	g.emit(notFound)
	g.ix = nil
	return true
}

// generate encodes every key of doc into g.buf/g.tbuf, recording their
// offsets in g.offs (unsorted, possibly with duplicates).
func (g *Generator) generate(ix *catalog.Index, doc bsoncore.Document) error {
	n := len(ix.Fields)
	g.ix = ix
	if cap(g.fixed) < n {
		g.fixed = make([]bsoncore.Value, n)
	}
	if cap(g.pos) < n { // geo keys size fixed alone (geo.go)
		g.pos = make([]int, n)
	}
	g.fixed, g.pos = g.fixed[:n], g.pos[:n]
	g.stack, g.paths = g.stack[:0], g.paths[:0]
	g.buf, g.offs, g.tbuf, g.vals = g.buf[:0], g.offs[:0], g.tbuf[:0], g.vals[:0]
	for i := range g.pos {
		g.pos[i] = 0
		g.stack = append(g.stack, i)
	}
	err := g.expand(doc, g.stack[:n], 0)
	g.ix = nil
	return err
}

// expand walks the active fields down obj and emits the keys of this
// level: directly when no field meets an array, else once per element of
// the (single) array met. notFound counts the fields already null because
// their path is missing (for sparse indexes).
func (g *Generator) expand(obj bsoncore.Document, active []int, notFound int) error {
	base := len(g.stack)
	var arr bsoncore.Value
	arrField, arrPart := -1, 0
	for _, i := range active {
		f := &g.ix.Fields[i]
		v, p, ok, whole, err := g.walk(i, obj, g.pos[i])
		switch {
		case err != nil:
			g.stack = g.stack[:base]
			return err
		case !ok:
			g.fixed[i] = nullValue
			notFound++
		case v.Type != bsoncore.TypeArray || whole:
			g.fixed[i] = v
		case arrField < 0:
			arr, arrField, arrPart = v, i, p
			g.stack = append(g.stack, i, p)
		case !sameData(v.Data, arr.Data):
			g.stack = g.stack[:base]
			return errs.New(errs.CannotIndexParallelArrays, "cannot index parallel arrays [%s] [%s]",
				f.Parts[p-1], g.ix.Fields[arrField].Parts[arrPart-1])
		default:
			g.stack = append(g.stack, i, p)
		}
	}
	if arrField < 0 {
		g.emit(notFound)
		return nil
	}
	g.addPath(arrField, arrPart)
	top := len(g.stack)
	var err error
	if elems := arr.Data[4 : len(arr.Data)-1]; len(elems) == 0 {
		err = g.element(undefinedValue, base, top, notFound)
	} else {
		for len(elems) > 0 && err == nil {
			el, rest, ok := bsoncore.ReadElement(elems)
			if !ok {
				break
			}
			elems = rest
			err = g.element(el.Value(), base, top, notFound)
		}
	}
	g.stack = g.stack[:base]
	return err
}

// element emits the keys of one element e of the array the fields paired
// in g.stack[base:top] met: those ending at the array take e, the others
// walk on inside e.
func (g *Generator) element(e bsoncore.Value, base, top, notFound int) error {
	sub := len(g.stack)
	for k := base; k < top; k += 2 {
		i, p := g.stack[k], g.stack[k+1]
		if p == len(g.ix.Fields[i].Parts) {
			g.fixed[i] = e
			continue
		}
		g.pos[i] = p
		g.stack = append(g.stack, i)
	}
	if len(g.stack) == sub {
		g.emit(notFound)
		return nil
	}
	d := emptyDocument
	if e.Type == bsoncore.TypeEmbeddedDocument {
		d = e.Document()
	}
	err := g.expand(d, g.stack[sub:], notFound)
	g.stack = g.stack[:sub]
	return err
}

// walk follows field i's path from part p inside obj through embedded
// documents. It stops at the end of the path or at an array met before it
// (returning the array and the part after it); ok is false when the path
// is missing. A numeric part after an array that has an element at that
// position selects the element (positional paths such as "a.0.b")
// instead of expanding the array, as mongod's key generator does: an
// element of that array that is a document with a field of the same name
// makes the path ambiguous (16746), and a selected element that is itself
// an array and ends the path is the key whole (whole), not expanded. An
// array without that position is expanded like any other, each element
// looked up for a field of that name.
func (g *Generator) walk(i int, obj bsoncore.Document, p int) (v bsoncore.Value, next int, ok, whole bool, err error) {
	parts := g.ix.Fields[i].Parts
	// LookupField reads the elements in place, faster than bsoncore's
	// lookup, which measures each element it passes through its type.
	v, found := bsonutil.LookupField(obj, parts[p])
	if !found {
		return bsoncore.Value{}, 0, false, false, nil
	}
	p++
	for p < len(parts) {
		switch v.Type {
		case bsoncore.TypeEmbeddedDocument:
			if v, found = bsonutil.LookupField(v.Data, parts[p]); !found {
				return bsoncore.Value{}, 0, false, false, nil
			}
		case bsoncore.TypeArray:
			n, isIndex := arrayIndexPart(parts[p])
			if !isIndex {
				return v, p, true, false, nil
			}
			elem, ierr := v.Array().IndexErr(uint(n))
			if ierr != nil {
				return v, p, true, false, nil // no such position: the array expands
			}
			if err := checkPositional(v, parts[p]); err != nil {
				return bsoncore.Value{}, 0, false, false, err
			}
			g.addPath(i, p)
			v = elem
			if v.Type == bsoncore.TypeArray && p+1 == len(parts) {
				return v, p + 1, true, true, nil
			}
		default:
			return bsoncore.Value{}, 0, false, false, nil
		}
		p++
	}
	return v, p, true, false, nil
}

// checkPositional refuses a positional part that an element of the array
// also names as a field: mongod cannot tell which one the path means.
func checkPositional(arr bsoncore.Value, part string) error {
	els, _ := bsoncore.Document(arr.Data).Elements()
	for _, el := range els {
		if d, ok := el.Value().DocumentOK(); ok {
			if _, found := bsonutil.LookupField(d, part); found {
				return errs.New(errs.Location16746, "Ambiguous field name found in array (do not use numeric field names in embedded elements in an array), field: '%s' for array: %s",
					part, bsonutil.FormatDoc(bsoncore.Document(arr.Data), bsonutil.Style{GoNonFinite: true, JSONCode: true}))
			}
		}
	}
	return nil
}

// arrayIndexPart parses a path part made of decimal digits (an array
// position), without allocating for the common non-numeric part.
func arrayIndexPart(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// sameData reports whether a and b are the same bytes of the document (the
// same array reached by two fields), not merely equal.
func sameData(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// addPath records the array met by field i after p parts.
func (g *Generator) addPath(i, p int) {
	f := &g.ix.Fields[i]
	path := f.Path[:f.PrefixEnd[p]]
	for _, q := range g.paths {
		if q == path {
			return
		}
	}
	g.paths = append(g.paths, path)
}

// emit encodes the current field values as one key, unless the index is
// sparse and every field is missing.
func (g *Generator) emit(notFound int) {
	fields := g.ix.Fields
	if g.ix.Sparse && notFound == len(fields) {
		return
	}
	start, tstart := len(g.buf), len(g.tbuf)
	for i := range fields {
		v := g.fixed[i]
		if g.ix.Collator != nil {
			v = g.ix.Collator.Transform(v)
		}
		g.buf = keystring.AppendValue(g.buf, v, fields[i].Desc)
		if i == 0 {
			g.heads = append(g.heads, len(g.buf)-start)
		}
		g.tbuf = keystring.AppendTypeBits(g.tbuf, v)
	}
	g.tbuf = g.tbuf[:tstart+len(keystring.TrimTypeBits(g.tbuf[tstart:]))] // a prefix
	g.offs = append(g.offs, start, len(g.buf), tstart, len(g.tbuf))
	if g.keepVals {
		g.vals = append(g.vals, g.fixed...)
	}
}

// keySorter sorts a Generator's keys with their type bits.
type keySorter struct{ g *Generator }

func (s keySorter) Len() int           { return len(s.g.keys) }
func (s keySorter) Less(i, j int) bool { return bytes.Compare(s.g.keys[i], s.g.keys[j]) < 0 }
func (s keySorter) Swap(i, j int) {
	s.g.keys[i], s.g.keys[j] = s.g.keys[j], s.g.keys[i]
	s.g.tbs[i], s.g.tbs[j] = s.g.tbs[j], s.g.tbs[i]
	if len(s.g.heads) > 0 {
		s.g.heads[i], s.g.heads[j] = s.g.heads[j], s.g.heads[i]
	}
}

// Values returns the field values of doc that produce keystring ks for
// ix, as a document {field: value, ...} for duplicate key errors.
func Values(ix *catalog.Index, doc bsoncore.Document, ks []byte) bsoncore.Document {
	g := Generator{keepVals: true}
	_ = g.generate(ix, doc)
	n := len(ix.Fields)
	pick := -1
	for k := 0; k < len(g.offs); k += 4 {
		if bytes.Equal(g.buf[g.offs[k]:g.offs[k+1]], ks) {
			pick = k / 4
			break
		}
	}
	if pick < 0 && len(g.offs) > 0 {
		pick = 0 // not found: report the first key
	}
	b := bsoncore.NewDocumentBuilder()
	for i, f := range ix.Fields {
		v := nullValue
		if pick >= 0 {
			v = g.vals[pick*n+i]
		}
		b.AppendValue(f.Path, v)
	}
	return b.Build()
}

// maxKeptBuf bounds the key buffers Release keeps.
const maxKeptBuf = 1 << 20

// Release drops g's references to the last document and index, keeping
// its buffers for the next use (a pooled generator's documents must not
// be kept alive).
func (g *Generator) Release() {
	if cap(g.buf)+cap(g.tbuf) > maxKeptBuf {
		// A large document's keys (a text or multikey index): not kept.
		*g = Generator{}
		return
	}
	g.ix = nil
	clear(g.fixed)
	clear(g.vals)
	g.vals = g.vals[:0]
	clear(g.keys)
	g.keys = g.keys[:0]
	clear(g.tbs)
	g.tbs = g.tbs[:0]
	g.heads = g.heads[:0]
}

// TypeBits returns the type bits of the i-th key of the last Keys call,
// valid until the next call on g.
func (g *Generator) TypeBits(i int) []byte { return g.tbs[i] }

// HeadLen returns the length of the first field's part of keys[i] (0:
// not known, for text and geo keys). A sort can group keys on it.
func (g *Generator) HeadLen(i int) int {
	if i < len(g.heads) {
		return g.heads[i]
	}
	return 0
}
