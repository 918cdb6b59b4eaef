package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	catdesc "github.com/lodedb/lode/internal/catalog"
)

// The collection and index descriptors live in internal/catalog, shared
// with the planner and index key generation; the engine names them here.
// (The engine's own catalog type is the copy-on-write map of them, in
// catalog.go.)

// index is an index's descriptor, immutable once published.
type index = catdesc.Index

// collDesc is a collection's descriptor, embedded in collection.
type collDesc = catdesc.Collection

// IndexSpec describes an index to create (catalog.IndexSpec).
type IndexSpec = catdesc.IndexSpec

// Index key formats (catalog.KeyFormatCurrent and the older ones).
const (
	keyFormatCrossProduct = catdesc.KeyFormatCrossProduct
	keyFormatElementWise  = catdesc.KeyFormatElementWise
	keyFormatCurrent      = catdesc.KeyFormatCurrent
)

// textDefaultLanguage is a text index's default default_language.
const textDefaultLanguage = catdesc.TextDefaultLanguage

// newIndex builds index metadata from a spec (catalog.NewIndex).
func newIndex(id uint64, spec IndexSpec) (*index, error) { return catdesc.NewIndex(id, spec) }

// isSimpleDoc reports whether a collation document is {locale: "simple"}.
func isSimpleDoc(d bsoncore.Document) bool { return catdesc.IsSimpleCollation(d) }

// parseKeyPattern validates a key pattern (catalog.ParseKeyPattern).
func parseKeyPattern(key bsoncore.Document) ([]catdesc.KeyField, error) {
	return catdesc.ParseKeyPattern(key)
}
