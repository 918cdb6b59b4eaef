package query

import (
	"github.com/lodedb/lode/internal/bsonutil"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// missing is the value a path yields when it reaches no field. Its type is
// zero, which bsonutil orders with undefined, as MongoDB does for EOO.
var missing = bsoncore.Value{}

// valueMatcher is implemented by every leaf node: it tests one value that a
// path produced. pos, when not nil, receives an inner array offset (set by
// $elemMatch) on success.
type valueMatcher interface {
	matchValue(v bsoncore.Value, pos *int) bool
}

// splitPath splits a dotted path into its components.
func splitPath(p string) []string { return strings.Split(p, ".") }

// lookupField returns the first element named key in doc, or missing.
func lookupField(doc []byte, key string) bsoncore.Value {
	v, _ := bsonutil.LookupField(doc, key)
	return v
}

// elemIter walks the elements of a document or array without allocating.
type elemIter struct{ rest []byte }

func newElemIter(doc []byte) elemIter {
	if len(doc) < 5 {
		return elemIter{}
	}
	return elemIter{rest: doc[4 : len(doc)-1]}
}

// next returns the next element's key and value; ok is false at the end or
// on malformed input.
func (it *elemIter) next() (key []byte, v bsoncore.Value, ok bool) {
	if len(it.rest) == 0 {
		return nil, missing, false
	}
	t := bsoncore.Type(it.rest[0])
	r := it.rest[1:]
	i := 0
	for i < len(r) && r[i] != 0 {
		i++
	}
	if i >= len(r) {
		it.rest = nil
		return nil, missing, false
	}
	keyb := r[:i]
	r = r[i+1:]
	data, tail, ok2 := bsoncore.ReadValue(r, t)
	if !ok2 {
		it.rest = nil
		return nil, missing, false
	}
	it.rest = tail
	return keyb, data, true
}

// isAllDigits reports whether s is a non-empty run of ASCII digits, the
// form MongoDB treats as a possible array index in a path.
func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pick returns the outermost array offset: outer when set, else k.
func pick(outer, k int) int {
	if outer >= 0 {
		return outer
	}
	return k
}

// yieldTo tests one produced value and records the array offset on success.
func yieldTo(m valueMatcher, v bsoncore.Value, off int, pos *int) bool {
	if !m.matchValue(v, pos) {
		return false
	}
	if pos != nil && off >= 0 {
		*pos = off
	}
	return true
}

// walkPath produces every value that path parts reaches in doc, following
// MongoDB's element iteration: embedded documents are descended, an array
// in the middle of the path is traversed one level (its document elements
// continue the path, a numeric component indexes it), and an array at the
// end yields each element and then the array itself when leafTraverse is
// set. It stops at the first value m accepts and reports whether one did.
func walkPath(doc []byte, parts []string, leafTraverse bool, m valueMatcher, pos *int, outer int) bool {
	cur := doc
	i := 0
	var v bsoncore.Value
	for {
		v = lookupField(cur, parts[i])
		if v.Type == bsoncore.TypeEmbeddedDocument && i < len(parts)-1 {
			cur = v.Data
			i++
			continue
		}
		break
	}
	if v.Type != bsoncore.TypeArray {
		if i < len(parts)-1 {
			v = missing
		}
		return yieldTo(m, v, outer, pos)
	}
	return walkArray(v, parts[i+1:], leafTraverse, m, pos, outer)
}

// walkArray continues a path walk at an array value with the remaining
// components rest.
func walkArray(arr bsoncore.Value, rest []string, leafTraverse bool, m valueMatcher, pos *int, outer int) bool {
	if len(rest) == 0 {
		if !leafTraverse {
			return yieldTo(m, arr, outer, pos)
		}
		it := newElemIter(arr.Data)
		for k := 0; ; k++ {
			_, e, ok := it.next()
			if !ok {
				break
			}
			if yieldTo(m, e, pick(outer, k), pos) {
				return true
			}
		}
		return yieldTo(m, arr, outer, pos)
	}
	numeric := isAllDigits(rest[0])
	it := newElemIter(arr.Data)
	for k := 0; ; k++ {
		key, e, ok := it.next()
		if !ok {
			break
		}
		offMatch := numeric && string(key) == rest[0]
		if e.Type == bsoncore.TypeEmbeddedDocument {
			if walkPath(e.Data, rest, leafTraverse, m, pos, pick(outer, k)) {
				return true
			}
			if offMatch {
				if len(rest) == 1 {
					if yieldTo(m, e, outer, pos) {
						return true
					}
				} else if walkPath(e.Data, rest[1:], leafTraverse, m, pos, outer) {
					return true
				}
			}
			continue
		}
		if offMatch {
			if len(rest) == 1 {
				if yieldTo(m, e, outer, pos) {
					return true
				}
			} else if e.Type == bsoncore.TypeArray {
				if walkArray(e, rest[1:], leafTraverse, m, pos, outer) {
					return true
				}
			}
		}
	}
	return false
}
