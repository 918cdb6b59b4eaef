package plan

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/geo"
	"github.com/lodedb/lode/internal/query"
)

// Field is one field of an index key pattern.
type Field struct {
	Path string
	Desc bool
	// Geo is the index type of a geo field ("2dsphere"), empty otherwise.
	Geo string
	// Hashed marks a hashed field: its keys are the values' hashes, so
	// it takes bounds from equalities only (hashed.go), and supplies no
	// sort order and no value.
	Hashed bool
}

// Index describes an index to the planner. The engine fills it from its
// catalog; the planner never reads storage.
type Index struct {
	ID         uint64
	Name       string
	KeyPattern bsoncore.Document
	Fields     []Field
	Unique     bool
	Sparse     bool
	// Partial is the parsed partialFilterExpression, nil when absent.
	Partial *query.Filter
	// Multikey reports that some document produced several keys;
	// MultikeyPaths lists the dotted path prefixes where arrays were met.
	Multikey      bool
	MultikeyPaths []string
	// Collation is the index's normalised collation spec, nil when
	// simple. The engine offers the planner only indexes whose collation
	// suits the query, with bounds in the index's key space.
	Collation bsoncore.Document
	// CollationMismatch is set when the index's collation is not the
	// query's: then it bounds no predicate that compares strings, and
	// provides no sort and no distinct scan (mongod's rule).
	CollationMismatch bool
	// Text is set for a text index, which only $text uses (text.go).
	Text *TextIndex
	// Grid2D is a 2d index's geohash grid (its bits, min and max); nil
	// for other indexes.
	Grid2D *geo.Grid2D
	// Clustered marks a clustered collection's clustered index: the
	// collection's records themselves, in _id order. A plan over it
	// becomes a bounded collection scan (clustered.go).
	Clustered bool
	// InClustered marks every index of a clustered collection: its
	// entries carry the cluster key that reaches their record
	// (Member.RKey), read through an index cursor set clustered.
	InClustered bool
}

// Grid returns the 2d grid of ix: its own, or mongod's default.
func (ix *Index) Grid() *geo.Grid2D {
	if ix.Grid2D != nil {
		return ix.Grid2D
	}
	return geo.DefaultGrid2D
}

// Directions returns the descending flags of the fields, for keystring
// decoding.
func (ix *Index) Directions() []bool {
	out := make([]bool, len(ix.Fields))
	for i, f := range ix.Fields {
		out[i] = f.Desc
	}
	return out
}

// FieldIndex returns the position of path among the index fields, or -1.
func (ix *Index) FieldIndex(path string) int {
	for i, f := range ix.Fields {
		if f.Path == path {
			return i
		}
	}
	return -1
}

// isPrefixPath reports whether p is path or one of its dotted prefixes.
func isPrefixPath(p, path string) bool {
	return p == path || strings.HasPrefix(path, p+".")
}

// multikeyPrefixes returns the multikey paths that are prefixes of path.
func (ix *Index) multikeyPrefixes(path string) []string {
	if !ix.Multikey {
		return nil
	}
	var out []string
	for _, m := range ix.MultikeyPaths {
		if isPrefixPath(m, path) {
			out = append(out, m)
		}
	}
	if len(out) == 0 && len(ix.MultikeyPaths) == 0 {
		// Multikey without path information: assume every field is.
		return []string{path}
	}
	return out
}

// IsMultikeyField reports whether an array was met on path's way.
func (ix *Index) IsMultikeyField(path string) bool { return len(ix.multikeyPrefixes(path)) > 0 }

// MultikeyPathsDoc renders multiKeyPaths as explain shows it: for each
// field, the array of prefixes of its path that are arrays.
func (ix *Index) MultikeyPathsDoc() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	for _, f := range ix.Fields {
		ab := bsoncore.NewArrayBuilder()
		if ix.Multikey {
			for _, m := range ix.multikeyPrefixes(f.Path) {
				ab.AppendString(m)
			}
		}
		b.AppendArray(f.Path, ab.Build())
	}
	return b.Build()
}
