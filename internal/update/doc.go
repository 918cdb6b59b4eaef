// Package update implements MongoDB 7.0's update language on raw BSON
// documents: operator updates ($set, $inc, $push, ...) with positional,
// all-positional and filtered-positional paths, and replacement documents.
//
// Parse validates an update specification up front and builds an update
// tree, as mongod does: paths are merged into one tree whose children are
// applied in MongoDB's field order (lexicographic, numeric names in numeric
// order), so new fields are appended in the same order as mongod appends
// them. Apply runs the tree against one document and returns the new
// document and whether anything changed.
package update

import (
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// MaxDocumentSize is the largest document an update may produce
// (BSONObjMaxUserSize).
const MaxDocumentSize = 16 * 1024 * 1024

// ApplyOptions are the per-document inputs of Apply.
type ApplyOptions struct {
	// Insert is true when doc is the seed of an upsert: $setOnInsert
	// applies, and _id may be created.
	Insert bool
	// Pos is the array offset the query matched, for the positional $
	// operator; -1 when the query matched no array element.
	Pos int
	// Now is the time $currentDate writes. Zero means time.Now().
	Now time.Time
	// Clock gives the increments of the timestamps $currentDate
	// {$type: "timestamp"} writes; the engine passes its own. Nil counts
	// from 1 within this Apply.
	Clock *TimestampClock
}

// TimestampClock hands out increasing increments for the timestamps
// $currentDate writes, so that two written in the same second differ.
// Each engine has one, as each mongod has its own clock. The zero value is
// ready to use.
type TimestampClock struct{ inc atomic.Uint32 }

// Next returns the next increment.
func (c *TimestampClock) Next() uint32 { return c.inc.Add(1) }

// Update is a parsed, validated update specification. It is immutable and
// safe for concurrent use by several goroutines.
type Update struct {
	replacement bsoncore.Document
	root        *node
	positional  bool
	filters     map[string]Matcher
}

// IsReplacement reports whether the update is a replacement document.
func (u *Update) IsReplacement() bool { return u.replacement != nil }

// IsPositional reports whether some path of the update uses the positional
// $ operator, so the caller must supply ApplyOptions.Pos.
func (u *Update) IsPositional() bool { return u.positional }

// Replacement returns the replacement document, or nil for an operator
// update.
func (u *Update) Replacement() bsoncore.Document { return u.replacement }
