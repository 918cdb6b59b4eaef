package indexkey

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/catalog"
	"github.com/lodedb/lode/internal/keystring"
)

// AppendIDKey appends to dst the single key of doc in ix, its keystring
// and then its type bits, when ix is a plain index on _id (ascending,
// the simple collation, neither sparse nor partial) and doc's first
// field is _id, as an insert leaves every document: the _id index of
// every collection, met by every insert. It returns the keystring's end
// in out. ok is false, with dst as it was, when ix or doc needs Keys; the
// key is the one Keys would make, without its walk over the index's
// fields and its result slices (a tenth of a bulk insert's CPU was
// Keys, for the _id index alone).
func AppendIDKey(dst []byte, ix *catalog.Index, doc bsoncore.Document) (out []byte, keyEnd int, ok bool) {
	if len(ix.Fields) != 1 || ix.Sparse || ix.PartialFilter != nil || ix.Collator != nil || ix.Text != nil {
		return dst, 0, false
	}
	if f := &ix.Fields[0]; f.Path != "_id" || f.Desc || f.Geo != "" || f.Text {
		return dst, 0, false
	}
	if len(doc) < 5 {
		return dst, 0, false
	}
	el, ok := bsonutil.ElementAt(doc[:len(doc)-1], 4)
	if !ok || el.Type == bsoncore.TypeArray || string(doc[el.Name:el.NameEnd]) != "_id" {
		return dst, 0, false
	}
	v := el.Value(doc)
	out = keystring.AppendValue(dst, v, false)
	keyEnd = len(out)
	out = keystring.AppendTypeBits(out, v)
	out = out[:keyEnd+len(keystring.TrimTypeBits(out[keyEnd:]))]
	return out, keyEnd, true
}
