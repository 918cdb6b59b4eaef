package engine

import (
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/membudget"
	"github.com/lodedb/lode/internal/storage"
)

// Options configures an Engine.
type Options struct {
	// SyncInterval is how often the background task fsyncs the WAL, like
	// MongoDB's journal commit interval. Zero means 100 ms.
	SyncInterval time.Duration
	// Logger receives the engine's logs. Nil means slog.Default().
	Logger *slog.Logger
	// TTLMonitorSleep is the TTL monitor's interval (ttlMonitorSleepSecs).
	// Zero means 60 s.
	TTLMonitorSleep time.Duration
	// Budget is the memory budget of the instance (`lode serve`'s
	// --memory-budget-mb); nil means a new unlimited one.
	Budget *membudget.Budget
	// CacheSize is the storage engine's block cache in bytes (`lode serve
	// --cache-size-gb`); zero means storage.DefaultCacheSize.
	CacheSize int64
	// OplogBytes bounds the operation log (`lode serve --oplog-size-mb`).
	// Zero means DefaultOplogBytes; a negative value turns the log off,
	// and with it change streams.
	OplogBytes int64
	// OnFailure is called once if a write to the filesystem fails (disk
	// full, EIO) and the engine enters its failed state, where every
	// operation returns the failure (storage.Options.OnFailure).
	OnFailure func(*storage.Failure)
	// FS is the filesystem under the storage engine; the zero FS is the
	// operating system's (tests inject I/O errors through it).
	FS storage.FS
}

// DefaultOplogBytes is the oplog's bound unless configured: 1 GiB, about
// mongod's minimum default (990 MB).
const DefaultOplogBytes = 1 << 30

// WriteOptions are the per-command options of a write.
type WriteOptions struct {
	// Ordered stops a batch at its first error.
	Ordered bool
	// Journal (j:true) acknowledges only after an fsync covers the write.
	Journal bool
	// BypassDocumentValidation skips the collection's validator.
	BypassDocumentValidation bool
	// System marks a write Lode makes itself to a system collection that
	// user commands may not write: admin.system.users and
	// admin.system.roles (internal/auth), local.system.lode.queryStats.
	// Commands never set it. Its documents skip the 180-level depth
	// check that user documents get (a deep query's statistics).
	System bool
	// ShallowDocs tells Insert that no document is nested deeper than
	// MaxStorageDepth (the server knows it from the wire layer's
	// validating pass), so the per-document depth check is skipped.
	ShallowDocs bool
	// ValidBSON tells Insert that every document was validated whole,
	// recursively (the wire layer's pass), so its elements are not
	// validated again.
	ValidBSON bool
	// IDFirst tells Insert that, with ValidBSON, every document's first
	// field is _id and no other top-level field is named _id (the wire
	// layer's pass), so no document is searched for its _id.
	IDFirst bool
}

// WriteError is the failure of one statement of a batch write.
type WriteError struct {
	// Index is the statement's position in the batch.
	Index int
	// Err is the MongoDB error; for 11000 its Info holds keyPattern and
	// keyValue.
	Err *errs.Error
}

// InsertResult is the outcome of an insert batch.
type InsertResult struct {
	N           int
	WriteErrors []WriteError
	// Copied: the engine keeps no reference to the documents it was
	// given (outside a transaction, everything it needs of them is
	// copied into its commits), so the caller may reuse their memory.
	Copied bool
}

// UpdateSpec is one statement of an update batch.
type UpdateSpec struct {
	Filter       bsoncore.Document
	Update       bsoncore.Value // a document (operators or replacement) or an array (pipeline)
	ArrayFilters []bsoncore.Document
	Multi        bool
	Upsert       bool
	Hint         bsoncore.Value // zero Value when absent
	// Let is the command's let (variables for $expr and pipelines);
	// Constants the statement's c (pipeline updates only). Nil: none.
	Let, Constants bsoncore.Document
	// Collation is the statement's collation; nil: the collection's.
	Collation bsoncore.Document
}

// Upserted reports the _id of a document an upsert inserted.
type Upserted struct {
	Index int
	ID    bsoncore.Value
}

// UpdateResult is the outcome of an update batch.
type UpdateResult struct {
	N           int // matched (plus upserted) documents, as MongoDB's reply counts them
	NModified   int
	Upserted    []Upserted
	WriteErrors []WriteError
}

// DeleteSpec is one statement of a delete batch.
type DeleteSpec struct {
	Filter bsoncore.Document
	Limit  int // 0 = all matching, 1 = one
	Hint   bsoncore.Value
	// Let is the command's let (variables for $expr). Nil: none.
	Let bsoncore.Document
	// Collation is the statement's collation; nil: the collection's.
	Collation bsoncore.Document
}

// DeleteResult is the outcome of a delete batch.
type DeleteResult struct {
	N           int
	WriteErrors []WriteError
}

// FindSpec describes a query.
type FindSpec struct {
	Filter     bsoncore.Document
	Sort       bsoncore.Document
	Projection bsoncore.Document
	Skip       int64
	Limit      int64 // 0 = no limit
	Hint       bsoncore.Value
	// Tailable and AwaitData apply to capped collections.
	Tailable  bool
	AwaitData bool
	// AllowDiskUse lets a blocking sort spill past its memory limit.
	AllowDiskUse bool
	// Let is the command's let: variables for $expr in the filter.
	Let bsoncore.Document
	// ShowRecordID adds each document's record id as $recordId.
	ShowRecordID bool
	// ReturnKey returns each result's key in the index the plan scanned
	// ({} for a collection scan) instead of the document.
	ReturnKey bool
	// Collation is the query's collation document; nil means the
	// collection's default ({locale: "simple"} overrides it).
	Collation bsoncore.Document
	// TextScoreField, when set, adds each document's text score under
	// that name after the projection (aggregate's $meta: "textScore").
	TextScoreField string
	// Min and Max bound the keys of the hinted index: from Min
	// (inclusive) to Max (exclusive) in index order (minmax.go).
	Min, Max bsoncore.Document
}

// FindAndModifySpec describes a findAndModify command.
type FindAndModifySpec struct {
	Query        bsoncore.Document
	Sort         bsoncore.Document
	Update       bsoncore.Value // zero when Remove
	Remove       bool
	New          bool
	Upsert       bool
	Fields       bsoncore.Document
	ArrayFilters []bsoncore.Document
	Hint         bsoncore.Value
	Journal      bool
	// Let is the command's let (variables for $expr and pipelines).
	Let bsoncore.Document
	// BypassDocumentValidation skips the collection's validator.
	BypassDocumentValidation bool
	// Collation is the command's collation; nil: the collection's.
	Collation bsoncore.Document
}

// LastErrorObject is findAndModify's lastErrorObject.
type LastErrorObject struct {
	N               int
	UpdatedExisting bool
	Upserted        bsoncore.Value // zero when nothing was upserted
}

// FindAndModifyResult is the outcome of findAndModify. Value is nil when
// no document is returned (the reply then carries value: null).
type FindAndModifyResult struct {
	Value           bsoncore.Document
	LastErrorObject LastErrorObject
}

// DatabaseInfo describes one database for listDatabases.
type DatabaseInfo struct {
	Name       string
	SizeOnDisk int64
	Empty      bool
}

// CollectionInfo describes one collection for listCollections.
type CollectionInfo struct {
	Name    string
	Type    string            // "collection"
	Options bsoncore.Document // the options given to create (capped, size, max, ...)
	UUID    [16]byte
}

// CreateOptions are the options of the create command that the engine
// stores and acts on. Raw holds the whole options document as given (minus
// the command name and generic fields) so listCollections can echo it.
type CreateOptions struct {
	Capped bool
	Size   int64
	Max    int64
	Raw    bsoncore.Document
	// UUID, when not nil, is the new collection's UUID instead of a fresh
	// one (applyOps' create with ui, as mongorestore --preserveUUID
	// sends). A UUID another collection holds is refused.
	UUID *[16]byte
}

// Iterator streams documents. Next returns (nil, nil) at the end.
// Close releases the snapshot; it is safe to call more than once.
type Iterator interface {
	Next() (bsoncore.Document, error)
	Close() error
}
