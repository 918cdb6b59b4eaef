package update

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// mnode is one value of a document being updated. Documents and arrays are
// kept as raw bytes until an update descends into them; then they are
// expanded into names and kids. Untouched subtrees are copied verbatim
// when the document is serialized again.
type mnode struct {
	t     bsoncore.Type
	raw   bsoncore.Value // the value while not expanded
	exp   bool           // expanded document or array
	names []string       // field names of an expanded document
	kids  []*mnode       // fields or elements of an expanded value
}

func newValue(v bsoncore.Value) *mnode { return &mnode{t: v.Type, raw: v} }

func newDoc() *mnode { return &mnode{t: bsoncore.TypeEmbeddedDocument, exp: true} }

func newNull() *mnode {
	return &mnode{t: bsoncore.TypeNull, raw: bsoncore.Value{Type: bsoncore.TypeNull}}
}

func (n *mnode) isDoc() bool   { return n.t == bsoncore.TypeEmbeddedDocument }
func (n *mnode) isArray() bool { return n.t == bsoncore.TypeArray }

// expand turns a raw document or array into names and kids.
func (n *mnode) expand() {
	if n.exp || (!n.isDoc() && !n.isArray()) {
		return
	}
	data := n.raw.Data
	cnt := 0
	for rest := data[4:]; len(rest) > 1; cnt++ {
		_, r, ok := bsoncore.ReadElement(rest)
		if !ok {
			break
		}
		rest = r
	}
	slab := make([]mnode, cnt)
	n.names = make([]string, 0, cnt)
	n.kids = make([]*mnode, 0, cnt)
	// One string conversion of the whole value; field names are
	// substrings of it, which saves an allocation per field.
	str := string(data)
	rest := data[4:]
	off := 4
	for i := 0; i < cnt; i++ {
		e, r, _ := bsoncore.ReadElement(rest)
		klen := len(e.KeyBytes())
		v := e.Value()
		slab[i] = mnode{t: v.Type, raw: v}
		n.names = append(n.names, str[off+1:off+1+klen])
		n.kids = append(n.kids, &slab[i])
		off += len(rest) - len(r)
		rest = r
	}
	n.exp = true
	n.raw = bsoncore.Value{}
}

// find returns the index of the child called name, or -1. For arrays the
// name must be a decimal index.
func (n *mnode) find(name string) int {
	n.expand()
	if n.isArray() {
		i, ok := arrayIndex(name)
		if !ok || i >= len(n.kids) {
			return -1
		}
		return i
	}
	for i, k := range n.names {
		if k == name {
			return i
		}
	}
	return -1
}

// arrayIndex parses a path component as an array index.
func arrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(s)
	return i, err == nil
}

// value returns the node as a bsoncore.Value, serializing it if expanded.
func (n *mnode) value() bsoncore.Value {
	if !n.exp {
		return n.raw
	}
	return bsoncore.Value{Type: n.t, Data: n.appendValue(nil)}
}

// appendValue appends the value bytes (no header) of n to dst.
func (n *mnode) appendValue(dst []byte) []byte {
	if !n.exp {
		return append(dst, n.raw.Data...)
	}
	idx, dst := bsoncore.ReserveLength(dst)
	for i, k := range n.kids {
		name := ""
		if n.isArray() {
			name = strconv.Itoa(i)
		} else {
			name = n.names[i]
		}
		dst = bsoncore.AppendHeader(dst, k.t, name)
		dst = k.appendValue(dst)
	}
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst)-int(idx)))
}

// size estimates nothing; it serializes. Used only for the final check.
func (n *mnode) remove(i int) {
	n.kids = append(n.kids[:i], n.kids[i+1:]...)
	if n.isDoc() {
		n.names = append(n.names[:i], n.names[i+1:]...)
	}
}

// appendChild adds a field at the end of an expanded document.
func (n *mnode) appendChild(name string, k *mnode) {
	n.names = append(n.names, name)
	n.kids = append(n.kids, k)
}
