package catalog

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// IndexSpec describes an index to create (engine.IndexSpec).
type IndexSpec struct {
	Name string
	// Key is the key pattern, an ordered document such as {a: 1, b: -1}.
	Key    bsoncore.Document
	Unique bool
	Sparse bool
	// PartialFilterExpression is nil when absent.
	PartialFilterExpression bsoncore.Document
	// ExpireAfterSeconds is nil when the index is not a TTL index.
	ExpireAfterSeconds *int64
	// Hidden hides the index from the planner (it is still maintained).
	Hidden bool
	// PrepareUnique refuses new duplicate keys (collMod can then make
	// the index unique).
	PrepareUnique bool
	// Collation is the index's collation: its normalised spec (as
	// collation.Spec.Document renders it), nil for the simple one. On
	// CreateIndex, nil means the collection's default collation and
	// {locale: "simple"} the simple collation.
	Collation bsoncore.Document
	// Weights, DefaultLanguage, LanguageOverride and TextIndexVersion are
	// a text index's options, in stored form (engine/textindex.go normalises them); a zero
	// TextIndexVersion means the index is not a text index.
	Weights          bsoncore.Document
	DefaultLanguage  string
	LanguageOverride string
	TextIndexVersion int32
	// Geo2D holds a 2d index's bits, min and max as given (geo2d.go);
	// nil for mongod's defaults or another index type.
	Geo2D bsoncore.Document
}

// Doc renders the specification as listIndexes shows it (and the oplog
// records it).
func (spec IndexSpec) Doc() bsoncore.Document {
	b := bsoncore.NewDocumentBuilder().
		AppendInt32("v", 2).
		AppendDocument("key", spec.Key).
		AppendString("name", spec.Name)
	if spec.Unique && spec.Name != "_id_" {
		// MongoDB's _id index is unique without saying so in its spec.
		b.AppendBoolean("unique", true)
	}
	if spec.Sparse {
		b.AppendBoolean("sparse", true)
	}
	if spec.PartialFilterExpression != nil {
		b.AppendDocument("partialFilterExpression", spec.PartialFilterExpression)
	}
	if spec.ExpireAfterSeconds != nil {
		n := *spec.ExpireAfterSeconds
		if n >= -1<<31 && n < 1<<31 {
			b.AppendInt32("expireAfterSeconds", int32(n))
		} else {
			b.AppendInt64("expireAfterSeconds", n)
		}
	}
	if spec.TextIndexVersion != 0 {
		b.AppendDocument("weights", spec.Weights).
			AppendString("default_language", spec.DefaultLanguage).
			AppendString("language_override", spec.LanguageOverride).
			AppendInt32("textIndexVersion", spec.TextIndexVersion)
	}
	if spec.Geo2D != nil {
		elems, _ := spec.Geo2D.Elements()
		for _, e := range elems {
			b.AppendValue(e.Key(), e.Value()) // as given, as mongod shows them
		}
	}
	if spec.Hidden {
		b.AppendBoolean("hidden", true)
	}
	if spec.PrepareUnique {
		b.AppendBoolean("prepareUnique", true)
	}
	if spec.Collation != nil && !IsSimpleCollation(spec.Collation) {
		b.AppendDocument("collation", spec.Collation)
	}
	return b.Build()
}

// IsSimpleCollation reports whether a collation document is
// {locale: "simple"}.
func IsSimpleCollation(d bsoncore.Document) bool {
	s, _ := d.Lookup("locale").StringValueOK()
	return s == "simple"
}
