package engine

import (
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"time"
)

// IndexInfo describes an existing index.
type IndexInfo struct {
	IndexSpec
	// ID is the index's numeric id (its storage key prefix).
	ID uint64
	// Multikey reports whether some document produced several keys.
	Multikey bool
	// MultikeyPaths lists the dotted path prefixes where arrays were found
	// (for example "metadata" for {"metadata.key": 1}).
	MultikeyPaths []string
	// Accesses is how many operations used the index since AccessesSince
	// ($indexStats).
	Accesses      int64
	AccessesSince time.Time
	// Clustered is, for a clustered collection's clustered index, its
	// listIndexes form: {v: 2, key: {_id: 1}, name, unique: true,
	// clustered: true}; nil for other indexes.
	Clustered bsoncore.Document
}
