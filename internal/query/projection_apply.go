package query

import (
	"github.com/lodedb/lode/internal/errs"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Apply projects doc. pos is the positional offset from
// Filter.MatchPositional (-1 when unknown); it is used only by a "field.$"
// projection, which fails with code 51246 when the path reaches an array
// and pos is -1.
func (p *Projection) Apply(doc bsoncore.Document, pos int) (bsoncore.Document, error) {
	if p.empty {
		return doc, nil
	}
	var out []byte
	st := &applyState{}
	if p.inclusion {
		out = p.include(doc, p.root, doc, st)
	} else {
		out = p.exclude(doc, p.root, doc)
	}
	if st.err != nil {
		return nil, st.err
	}
	var err error
	if p.positional != nil {
		out, err = applyPositional(out, p.positional, pos)
		if err != nil {
			return nil, err
		}
	}
	for _, s := range p.slices {
		out = applySlice(out, s, 0)
	}
	return out, nil
}

// applyState carries the first expression error of one Apply.
type applyState struct{ err error }

// include builds the inclusion projection of a document level.
func (p *Projection) include(doc []byte, n *projNode, root []byte, st *applyState) []byte {
	idx, out := bsoncore.AppendDocumentStart(nil)
	it := newElemIter(doc)
	seen := map[string]bool(nil)
	for {
		kb, v, ok := it.next()
		if !ok {
			break
		}
		c := n.kids[string(kb)]
		if c == nil {
			continue
		}
		key := string(kb)
		switch c.kind {
		case projInclude, projSlice:
			out = bsoncore.AppendValueElement(out, key, v)
		case projInternal:
			if nv, ok := p.includeSub(v, c, root, st); ok {
				out = bsoncore.AppendValueElement(out, key, nv)
				if c.hasComputed {
					if seen == nil {
						seen = map[string]bool{}
					}
					seen[key] = true
				}
			}
		}
	}
	for _, k := range n.order {
		c := n.kids[k]
		switch {
		case c.kind == projComputed:
			r, err := c.expr(root)
			if err != nil && st.err == nil {
				st.err = err
			}
			if r.Type != 0 {
				out = bsoncore.AppendValueElement(out, k, r)
			}
		case c.kind == projElemMatch:
			if r, ok := p.elemMatchValue(doc, k); ok {
				out = bsoncore.AppendValueElement(out, k, r)
			}
		case c.kind == projInternal && c.hasComputed && !seen[k]:
			sub := p.include(emptyDoc, c, root, st)
			out = bsoncore.AppendDocumentElement(out, k, sub)
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

var emptyDoc = []byte{5, 0, 0, 0, 0}

// includeSub projects the value of an internal node in inclusion mode:
// documents are projected, arrays are mapped (non-document elements are
// dropped, nested arrays are projected recursively), scalars are dropped.
func (p *Projection) includeSub(v bsoncore.Value, c *projNode, root []byte, st *applyState) (bsoncore.Value, bool) {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: p.include(v.Data, c, root, st)}, true
	case bsoncore.TypeArray:
		idx, arr := bsoncore.AppendArrayStart(nil)
		i := 0
		it := newElemIter(v.Data)
		for {
			_, e, ok := it.next()
			if !ok {
				break
			}
			if nv, ok := p.includeSub(e, c, root, st); ok {
				arr = bsoncore.AppendValueElement(arr, itoa(i), nv)
				i++
			}
		}
		arr, _ = bsoncore.AppendArrayEnd(arr, idx)
		return bsoncore.Value{Type: bsoncore.TypeArray, Data: arr}, true
	}
	if c.hasComputed {
		return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: p.include(emptyDoc, c, root, st)}, true
	}
	return bsoncore.Value{}, false
}

// exclude builds the exclusion projection of a document level.
func (p *Projection) exclude(doc []byte, n *projNode, root []byte) []byte {
	idx, out := bsoncore.AppendDocumentStart(nil)
	it := newElemIter(doc)
	for {
		kb, v, ok := it.next()
		if !ok {
			break
		}
		key := string(kb)
		c := n.kids[key]
		if c == nil {
			out = bsoncore.AppendValueElement(out, key, v)
			continue
		}
		switch c.kind {
		case projExclude:
		case projInternal:
			out = bsoncore.AppendValueElement(out, key, p.excludeSub(v, c, root))
		case projElemMatch:
			if r, ok := p.elemMatchValue(doc, key); ok {
				out = bsoncore.AppendValueElement(out, key, r)
			}
		default:
			out = bsoncore.AppendValueElement(out, key, v)
		}
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

func (p *Projection) excludeSub(v bsoncore.Value, c *projNode, root []byte) bsoncore.Value {
	switch v.Type {
	case bsoncore.TypeEmbeddedDocument:
		return bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: p.exclude(v.Data, c, root)}
	case bsoncore.TypeArray:
		idx, arr := bsoncore.AppendArrayStart(nil)
		i := 0
		it := newElemIter(v.Data)
		for {
			_, e, ok := it.next()
			if !ok {
				break
			}
			arr = bsoncore.AppendValueElement(arr, itoa(i), p.excludeSub(e, c, root))
			i++
		}
		arr, _ = bsoncore.AppendArrayEnd(arr, idx)
		return bsoncore.Value{Type: bsoncore.TypeArray, Data: arr}
	}
	return v
}

// elemMatchValue returns [first matching element] of the array at field.
func (p *Projection) elemMatchValue(doc []byte, field string) (bsoncore.Value, bool) {
	for _, s := range p.elemMatch {
		if s.field != field {
			continue
		}
		v := lookupField(doc, field)
		if v.Type != bsoncore.TypeArray {
			return bsoncore.Value{}, false
		}
		k := -1
		if !s.node.matchValue(v, &k) || k < 0 {
			return bsoncore.Value{}, false
		}
		e, ok := arrayIndex(v, k)
		if !ok {
			return bsoncore.Value{}, false
		}
		return singleArray(e), true
	}
	return bsoncore.Value{}, false
}

func arrayIndex(arr bsoncore.Value, k int) (bsoncore.Value, bool) {
	it := newElemIter(arr.Data)
	for i := 0; ; i++ {
		_, e, ok := it.next()
		if !ok {
			return bsoncore.Value{}, false
		}
		if i == k {
			return e, true
		}
	}
}

func singleArray(e bsoncore.Value) bsoncore.Value {
	idx, arr := bsoncore.AppendArrayStart(nil)
	arr = bsoncore.AppendValueElement(arr, "0", e)
	arr, _ = bsoncore.AppendArrayEnd(arr, idx)
	return bsoncore.Value{Type: bsoncore.TypeArray, Data: arr}
}

// applyPositional replaces the first array met along path in the
// projected document by the one-element array [arr[pos]].
func applyPositional(doc []byte, path []string, pos int) ([]byte, error) {
	v := lookupField(doc, path[0])
	switch v.Type {
	case bsoncore.TypeArray:
		if pos < 0 {
			return nil, errs.New(errs.Location51246, "positional operator '.$' couldn't find a matching element in the array")
		}
		e, ok := arrayIndex(v, pos)
		if !ok {
			return nil, errs.New(errs.Location51247, "positional operator '.$' element mismatch")
		}
		return replaceField(doc, path[0], singleArray(e)), nil
	case bsoncore.TypeEmbeddedDocument:
		if len(path) == 1 {
			return doc, nil
		}
		sub, err := applyPositional(v.Data, path[1:], pos)
		if err != nil {
			return nil, err
		}
		return replaceField(doc, path[0], bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: sub}), nil
	}
	return doc, nil
}

// replaceField returns doc with the first field named key set to v, in
// place; a zero v removes the field.
func replaceField(doc []byte, key string, v bsoncore.Value) []byte {
	idx, out := bsoncore.AppendDocumentStart(nil)
	it := newElemIter(doc)
	done := false
	for {
		kb, e, ok := it.next()
		if !ok {
			break
		}
		if !done && string(kb) == key {
			done = true
			if v.Type != 0 {
				out = bsoncore.AppendValueElement(out, key, v)
			}
			continue
		}
		out = bsoncore.AppendValueElement(out, string(kb), e)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

// applySlice applies a $slice at s.parts[i:] of doc: documents are
// descended, arrays in the middle have the rest applied to their document
// elements, and the array at the end is sliced.
func applySlice(doc []byte, s sliceSpec, i int) []byte {
	key := s.parts[i]
	v := lookupField(doc, key)
	switch v.Type {
	case bsoncore.TypeArray:
		if i+1 == len(s.parts) {
			return replaceField(doc, key, sliceArray(v, s))
		}
		idx, arr := bsoncore.AppendArrayStart(nil)
		it := newElemIter(v.Data)
		for k := 0; ; k++ {
			_, e, ok := it.next()
			if !ok {
				break
			}
			if e.Type == bsoncore.TypeEmbeddedDocument {
				e = bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: applySlice(e.Data, s, i+1)}
			}
			arr = bsoncore.AppendValueElement(arr, itoa(k), e)
		}
		arr, _ = bsoncore.AppendArrayEnd(arr, idx)
		return replaceField(doc, key, bsoncore.Value{Type: bsoncore.TypeArray, Data: arr})
	case bsoncore.TypeEmbeddedDocument:
		if i+1 == len(s.parts) {
			return doc
		}
		return replaceField(doc, key, bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: applySlice(v.Data, s, i+1)})
	}
	return doc
}

// sliceArray applies find's $slice: n (first n), -n (last n) or
// [skip, limit] (negative skip counts from the end).
func sliceArray(arr bsoncore.Value, s sliceSpec) bsoncore.Value {
	vals, _ := arr.Array().Values()
	n := len(vals)
	start, end := 0, n
	if s.skip == nil {
		if s.limit >= 0 {
			end = min(s.limit, n)
		} else {
			start = max(n+s.limit, 0)
		}
	} else {
		start = *s.skip
		if start < 0 {
			start = max(n+start, 0)
		}
		start = min(start, n)
		end = min(start+s.limit, n)
	}
	idx, out := bsoncore.AppendArrayStart(nil)
	for i, v := range vals[start:end] {
		out = bsoncore.AppendValueElement(out, itoa(i), v)
	}
	out, _ = bsoncore.AppendArrayEnd(out, idx)
	return bsoncore.Value{Type: bsoncore.TypeArray, Data: out}
}
