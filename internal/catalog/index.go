package catalog

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/geo"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/plan"
)

// Index is one index's descriptor. It is immutable once published: a
// change copies it (cp := *ix), changes the copy and publishes the copy
// in a new Collection.
type Index struct {
	// ID is the index's numeric id (its storage key prefix).
	ID   uint64
	Name string
	// Key is the key pattern as stored and Fields its parsed fields.
	Key    bsoncore.Document
	Fields []KeyField
	Unique bool
	Sparse bool
	// Partial is the partialFilterExpression (nil: none) and
	// PartialFilter its parsed form.
	Partial       bsoncore.Document
	PartialFilter *query.Filter
	// TTL is expireAfterSeconds (nil: not a TTL index).
	TTL *int64
	// Multikey: some document produced several keys; MultikeyPaths lists
	// the dotted path prefixes where arrays were met.
	Multikey      bool
	MultikeyPaths []string
	// KeyFormat is how the index's keys were generated (format.go).
	KeyFormat int
	// Hidden: maintained and enforced, but not used by the planner.
	Hidden bool
	// Clustered marks a clustered collection's clustered index (on _id):
	// the collection's records are its entries, it has none of its own.
	// InClustered marks every index of a clustered collection: its
	// entries carry their record's cluster key (storage's
	// SetClusteredIndexEntry). Both follow from the collection's options
	// (Collection.SetClusteredFromOptions).
	Clustered, InClustered bool
	// VisibleFrom is the storage commit sequence of the build that
	// published the index in this process (0: built before it opened): a
	// snapshot taken before that commit ended lacks its entries and must
	// not plan with it.
	VisibleFrom uint64
	// PrepareUnique: new duplicate keys are refused, so that collMod can
	// convert the index to unique once existing duplicates are resolved.
	PrepareUnique bool
	// Collation is the normalised collation spec (nil: simple) and
	// Collator its collator: string keys are stored as its sort keys.
	Collation bsoncore.Document
	Collator  *collation.Collator
	// Text is set for a text index (text.go); TextSpec holds its text
	// options as stored (Weights, DefaultLanguage, LanguageOverride,
	// TextIndexVersion).
	Text     *TextIndex
	TextSpec IndexSpec
	// Geo2D holds a 2d index's bits, min and max as given (nil: none),
	// and Grid2D the grid they make (nil unless the index is 2d).
	Geo2D  bsoncore.Document
	Grid2D *geo.Grid2D

	// views caches the planner's view of the index (planview.go): with
	// the index's collation, and with another. viewsOf is the index they
	// were built for, so that a copy does not use its original's.
	views   [2]*plan.Index
	viewsOf *Index
}

// NewIndex builds an index descriptor from a spec whose key pattern and
// text options are in stored form. The index has the current key format.
func NewIndex(id uint64, spec IndexSpec) (*Index, error) {
	fields, err := ParseKeyPattern(spec.Key)
	if err != nil {
		return nil, err
	}
	ix := &Index{
		ID: id, Name: spec.Name, Key: spec.Key, Fields: fields,
		Unique: spec.Unique, Sparse: spec.Sparse, Partial: spec.PartialFilterExpression,
		TTL: spec.ExpireAfterSeconds, KeyFormat: KeyFormatCurrent,
		Hidden: spec.Hidden, PrepareUnique: spec.PrepareUnique,
	}
	if spec.Collation != nil {
		s, err := collation.Parse(spec.Collation)
		if err != nil {
			return nil, err
		}
		if s != nil {
			ix.Collator = collation.New(s)
			ix.Collation = s.Document()
		}
	}
	if ix.HashedField() >= 0 {
		if err := checkHashedIndex(ix); err != nil {
			return nil, err
		}
	}
	if spec.TextIndexVersion != 0 {
		ix.Text = newTextIndex(spec, fields)
		ix.TextSpec = IndexSpec{Weights: spec.Weights, DefaultLanguage: spec.DefaultLanguage,
			LanguageOverride: spec.LanguageOverride, TextIndexVersion: spec.TextIndexVersion}
	}
	if err := ix.setGrid2D(spec.Geo2D); err != nil {
		return nil, err
	}
	if spec.PartialFilterExpression != nil {
		f, err := query.Parse(spec.PartialFilterExpression)
		if err != nil {
			return nil, err
		}
		if err := query.RefuseText(f); err != nil {
			return nil, err
		}
		ix.PartialFilter = f
	}
	return ix, nil
}

// IsID reports whether ix is the _id index.
func (ix *Index) IsID() bool { return ix.Name == "_id_" || ix.Clustered }

// EnforcesUnique reports whether a write may not add a key the index
// already holds for another record (unique, or prepareUnique).
func (ix *Index) EnforcesUnique() bool { return ix.Unique || ix.PrepareUnique }

// HasGeo reports whether ix has a geo (2dsphere or 2d) field.
func (ix *Index) HasGeo() bool {
	for i := range ix.Fields {
		if ix.Fields[i].Geo != "" {
			return true
		}
	}
	return false
}

// HashedField returns the position of ix's hashed field, or -1.
func (ix *Index) HashedField() int {
	for i := range ix.Fields {
		if ix.Fields[i].Hashed {
			return i
		}
	}
	return -1
}

// checkHashedIndex refuses the options a hashed index cannot have:
// uniqueness (mongod's 16764: equal hashes do not mean equal values),
// and, with 238, what Lode does not build for one: a collation (mongod
// hashes the collation's sort key of a string, which Lode's collation
// library does not reproduce byte for byte) and a TTL.
func checkHashedIndex(ix *Index) error {
	if ix.Unique || ix.PrepareUnique {
		return errs.New(errs.Code(16764), "Currently hashed indexes cannot guarantee uniqueness. Use a regular index.")
	}
	if ix.Collator != nil {
		return errs.New(errs.NotImplemented, "a hashed index with a collation is not supported by Lode (index %s); create it with collation {locale: \"simple\"}", ix.Name)
	}
	if ix.TTL != nil {
		return errs.New(errs.NotImplemented, "a TTL on a hashed index is not supported by Lode (index %s)", ix.Name)
	}
	return nil
}

// Spec returns the specification ix was created with (in stored form).
func (ix *Index) Spec() IndexSpec {
	return IndexSpec{Name: ix.Name, Key: ix.Key, Unique: ix.Unique, Sparse: ix.Sparse,
		PartialFilterExpression: ix.Partial, ExpireAfterSeconds: ix.TTL,
		Hidden: ix.Hidden, PrepareUnique: ix.PrepareUnique, Collation: ix.Collation,
		Weights: ix.TextSpec.Weights, DefaultLanguage: ix.TextSpec.DefaultLanguage,
		LanguageOverride: ix.TextSpec.LanguageOverride, TextIndexVersion: ix.TextSpec.TextIndexVersion,
		Geo2D: ix.Geo2D}
}
