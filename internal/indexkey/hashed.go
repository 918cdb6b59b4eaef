package indexkey

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/bsonutil"
	"github.com/lodedb/lode/internal/catalog"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/expr"
)

// generateHashed encodes the one key of doc for an index with a hashed
// field, as mongod's hashed key generator does: each field's value is
// found down its path (null when missing), the hashed field's replaced
// by its 64-bit hash (expr.HashedIndexKey, the hash $toHashedIndexKey
// returns) as a long; an array met on any field's path fails the write
// with 16766, so the index is never multikey; a sparse index skips the
// document only when every field is missing.
func (g *Generator) generateHashed(ix *catalog.Index, doc bsoncore.Document) error {
	n := len(ix.Fields)
	if cap(g.fixed) < n {
		g.fixed = make([]bsoncore.Value, n)
	}
	g.fixed = g.fixed[:n]
	g.ix = ix
	g.stack, g.paths = g.stack[:0], g.paths[:0]
	g.buf, g.offs, g.tbuf, g.vals = g.buf[:0], g.offs[:0], g.tbuf[:0], g.vals[:0]
	defer func() { g.ix = nil }()
	notFound := 0
	for i := range ix.Fields {
		f := &ix.Fields[i]
		v, found, arrayAt := pathValue(doc, f.Parts)
		if arrayAt > 0 {
			return errs.New(errs.Code(16766), "Error: hashed indexes do not currently support array values. Found array at path: %s", f.Path[:f.PrefixEnd[arrayAt]])
		}
		if !found {
			v = nullValue
			notFound++
		}
		if f.Hashed {
			v = bsoncore.Value{Type: bsoncore.TypeInt64, Data: bsoncore.AppendInt64(nil, expr.HashedIndexKey(v))}
		}
		g.fixed[i] = v
	}
	g.emit(notFound)
	return nil
}

// pathValue follows parts down doc through embedded documents. It
// returns the value at the end of the path, or found false when the path
// is missing; arrayAt is the number of parts up to an array met on the
// way or at the end (0 when none).
func pathValue(doc bsoncore.Document, parts []string) (v bsoncore.Value, found bool, arrayAt int) {
	obj := doc
	for k, part := range parts {
		if v, found = bsonutil.LookupField(obj, part); !found {
			return bsoncore.Value{}, false, 0
		}
		switch {
		case v.Type == bsoncore.TypeArray:
			return v, true, k + 1
		case k == len(parts)-1:
			return v, true, 0
		case v.Type != bsoncore.TypeEmbeddedDocument:
			return bsoncore.Value{}, false, 0
		}
		obj = v.Data
	}
	return bsoncore.Value{}, false, 0
}
