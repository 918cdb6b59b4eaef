package indexkey

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/catalog"
	"github.com/lodedb/lode/internal/keystring"
)

// maxFlatFields bounds the fields FlatKey handles (its values live in an
// array on the stack).
const maxFlatFields = 8

// FlatKey returns the single key of doc in ix and its type bits, and the
// length of the key's first field (HeadLen's), when ix is a plain index
// of top-level fields (no dotted path, geo, text or hashed field, collation,
// sparseness or partial filter) and none of its fields is an array in
// doc: the key Keys would return, without Keys' result slices, sorting
// and bookkeeping for several keys, which were half the cost of one key
// (an index build calls it once per document and index). ok is false
// when ix or doc needs Keys. The slices are valid until the next call
// on g.
func (g *Generator) FlatKey(ix *catalog.Index, doc bsoncore.Document) (key, typeBits []byte, head int, ok bool) {
	fields := ix.Fields
	n := len(fields)
	if n == 0 || n > maxFlatFields || ix.Sparse || ix.PartialFilter != nil || ix.Collator != nil || ix.Text != nil {
		return nil, nil, 0, false
	}
	// The fields' names, and where each value lies in doc (its type and
	// its bytes' bounds: smaller to clear than bsoncore.Values).
	var names [maxFlatFields]string
	var vals [maxFlatFields]struct {
		t          bsoncore.Type
		start, end int32
	}
	for i := range fields {
		f := &fields[i]
		if len(f.Parts) != 1 || f.Geo != "" || f.Text || f.Hashed {
			return nil, nil, 0, false
		}
		names[i] = f.Parts[0]
	}
	var met uint
	all := uint(1)<<n - 1
	if len(doc) >= 5 {
		b := doc[:len(doc)-1]
		for p := 4; p < len(b) && met != all; {
			el, found := bsonutil.ElementAt(b, p)
			if !found {
				break // malformed: the fields not met yet are missing, as in flat
			}
			name := b[el.Name:el.NameEnd]
			for i := 0; i < n; i++ {
				if met&(1<<i) == 0 && string(name) == names[i] {
					if el.Type == bsoncore.TypeArray {
						return nil, nil, 0, false // multikey: Keys expands it
					}
					vals[i].t, vals[i].start, vals[i].end = el.Type, int32(el.NameEnd+1), int32(el.End)
					met |= 1 << i
				}
			}
			p = el.End
		}
	}
	value := func(i int) bsoncore.Value {
		if met&(1<<i) == 0 {
			return nullValue
		}
		v := vals[i]
		return bsoncore.Value{Type: v.t, Data: doc[v.start:v.end:v.end]}
	}
	buf := g.buf[:0]
	for i := 0; i < n; i++ {
		buf = keystring.AppendValue(buf, value(i), fields[i].Desc)
		if i == 0 {
			head = len(buf)
		}
	}
	keyEnd := len(buf)
	for i := 0; i < n; i++ {
		buf = keystring.AppendTypeBits(buf, value(i))
	}
	buf = buf[:keyEnd+len(keystring.TrimTypeBits(buf[keyEnd:]))]
	g.buf = buf
	return buf[:keyEnd:keyEnd], buf[keyEnd:], head, true
}
