// Package catalog holds the descriptors of collections and indexes that
// the engine, the query planner and index key generation share. A
// descriptor is immutable once published: a change copies it, changes the
// copy and publishes the copy (the engine's catalog is copy on write).
// The engine keeps each collection's mutable state (its writer lock,
// record counters, capped trimming) beside its descriptor.
package catalog

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/collation"
)

// Collection is one collection's descriptor.
type Collection struct {
	DB, Name string
	// ID is the collection's numeric id (its records' key prefix) and
	// UUID its identity in the oplog and change streams.
	ID   uint64
	UUID [16]byte
	// Options are the create options as stored (normalised).
	Options bsoncore.Document
	// Capped, with its size and document count limits (0: none).
	Capped bool
	Size   int64
	Max    int64
	// Indexes are the collection's indexes, the _id index first.
	Indexes []*Index
	// Collator is the default collation of Options (nil: simple).
	Collator *collation.Collator
	// Clustered: the collection was created with clusteredIndex; its
	// records are kept in _id order (storage's clustered layout) and its
	// first index, Indexes[0], is the clustered index, which has no
	// entries of its own. ExpireAfter is its expireAfterSeconds (nil:
	// none): the TTL monitor removes documents whose _id is a date older
	// than that. Both follow from Options (SetClusteredFromOptions).
	Clustered   bool
	ExpireAfter *int64
}

// SetClusteredFromOptions sets Clustered and ExpireAfter from c.Options
// and marks c's indexes accordingly (Index.Clustered, Index.InClustered);
// call it on a collection being built, before Seal.
func (c *Collection) SetClusteredFromOptions() {
	c.Clustered, c.ExpireAfter = false, nil
	if c.Options == nil {
		return
	}
	if v, err := c.Options.LookupErr("clusteredIndex"); err == nil {
		c.Clustered = v.Type == bsoncore.TypeEmbeddedDocument || v.Type == bsoncore.TypeBoolean && v.Boolean()
	}
	if v, err := c.Options.LookupErr("expireAfterSeconds"); err == nil && c.Clustered {
		if n, ok := v.AsInt64OK(); ok {
			c.ExpireAfter = &n
		}
	}
	if !c.Clustered {
		return
	}
	for i, ix := range c.Indexes {
		ix.InClustered = true
		ix.Clustered = i == 0
	}
}

// ClusteredIndexSpec returns the clustered index's specification as
// listCollections shows it in options.clusteredIndex and listIndexes
// (with clustered: true): {v: 2, key: {_id: 1}, name, unique: true}.
// It is nil when c is not clustered.
func (c *Collection) ClusteredIndexSpec() bsoncore.Document {
	if !c.Clustered || len(c.Indexes) == 0 {
		return nil
	}
	return bsoncore.NewDocumentBuilder().AppendInt32("v", 2).
		AppendDocument("key", c.Indexes[0].Key).
		AppendString("name", c.Indexes[0].Name).
		AppendBoolean("unique", true).Build()
}

// NS returns the namespace "db.name".
func (c *Collection) NS() string { return c.DB + "." + c.Name }

// IndexByName returns the index named name, or nil.
func (c *Collection) IndexByName(name string) *Index {
	for _, ix := range c.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// Seal caches what is derived from c's index descriptors (the planner's
// views, planview.go) before c is published. Descriptors already sealed
// are left alone, so sealing a collection that shares them with a
// published version writes nothing they hold.
func (c *Collection) Seal() {
	for _, ix := range c.Indexes {
		ix.seal()
	}
}
