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
