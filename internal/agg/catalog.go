package agg

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// FindSpec is the part of a pipeline pushed down to the storage engine: a
// filter with optional sort, projection, skip and limit (0 = none).
type FindSpec struct {
	Filter       bsoncore.Document
	Sort         bsoncore.Document
	Projection   bsoncore.Document
	Skip         int64
	Limit        int64
	Hint         bsoncore.Value
	AllowDiskUse bool
	// Collation is the query's collation document (nil: the
	// collection's default).
	Collation bsoncore.Document
	// TextScore asks for each document's text score in the hidden field
	// query.HiddenTextScore (text.go).
	TextScore bool
}

// Iterator streams documents. Next returns (nil, nil) at the end; Close is
// safe to call more than once.
type Iterator interface {
	Next() (bsoncore.Document, error)
	Close() error
}

// CollStats are the figures $collStats reports.
type CollStats struct {
	Count          int64
	Size           int64
	StorageSize    int64
	TotalIndexSize int64
	IndexSizes     map[string]int64
	NIndexes       int
	Capped         bool
	// Max and MaxSize are a capped collection's bounds (Max 0: none).
	Max, MaxSize int64
	// Timeseries is a time series collection's section of storageStats
	// (nil for any other collection).
	Timeseries bsoncore.Document
}

// IndexInfo describes an index for $indexStats.
type IndexInfo struct {
	Name string
	Key  bsoncore.Document
	// Spec is the full index specification document (v, key, name, ...).
	Spec bsoncore.Document
	// Ops is how many operations used the index since Since ($indexStats'
	// accesses); a zero Since means the counters are not tracked.
	Ops   int64
	Since time.Time
}

// Catalog is what the pipeline needs from the database: reads, the writes
// of $out and $merge, and the metadata of $collStats and $indexStats.
type Catalog interface {
	// Find runs a query; a missing collection yields an empty iterator.
	Find(ctx context.Context, db, coll string, spec FindSpec) (Iterator, error)
	// Count counts the documents matching filter after skip and limit
	// (0 = none), from index keys alone when they answer the filter.
	Count(ctx context.Context, db, coll string, filter bsoncore.Document, skip, limit int64, hint bsoncore.Value) (int64, error)
	// Insert inserts docs in order and stops at the first failure, which it
	// returns as a MongoDB error.
	Insert(ctx context.Context, db, coll string, docs []bsoncore.Document) error
	// Update applies update (a replacement or operator document) to the
	// single document matching filter.
	Update(ctx context.Context, db, coll string, filter, update bsoncore.Document) error
	// CreateCollection creates db.coll if it does not exist.
	CreateCollection(ctx context.Context, db, coll string) error
	// DropCollection drops db.coll; dropping a missing collection succeeds.
	DropCollection(ctx context.Context, db, coll string) error
	// PrepareOut creates db.tmp for $out to write into, with the options
	// and indexes of db.target when it exists (so that replacing it keeps
	// them, as MongoDB does). A capped target fails with 17152.
	PrepareOut(ctx context.Context, db, target, tmp string) error
	// RenameCollection renames, replacing the target when dropTarget.
	RenameCollection(ctx context.Context, fromDB, fromColl, toDB, toColl string, dropTarget bool) error
	// Stats returns the size figures of db.coll.
	Stats(ctx context.Context, db, coll string) (CollStats, error)
	// Indexes lists the indexes of db.coll.
	Indexes(ctx context.Context, db, coll string) ([]IndexInfo, error)
	// ExplainFind renders the queryPlanner section for a pushed-down
	// query; it returns nil when the catalog has no planner explain, in
	// which case the pipeline renders a minimal one.
	ExplainFind(ctx context.Context, db, coll string, spec FindSpec) (bsoncore.Document, error)
}

// Partitioner is implemented by catalogs that can split a pushed-down
// query answered by a collection scan into scans of consecutive record
// ranges, read by separate goroutines ($group does). FindPartitions
// returns nil when the query is not such a scan. The documents of a part
// are valid only until its next Next call.
type Partitioner interface {
	FindPartitions(ctx context.Context, db, coll string, spec FindSpec, n int) ([]Iterator, error)
}
