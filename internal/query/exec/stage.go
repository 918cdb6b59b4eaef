// Package exec runs query plans: a tree of pull-based stages in MongoDB's
// work-unit model (each Work call does a bounded piece of work and reports
// ADVANCED with a result, NEED_TIME, or EOF), one stage per file, and the
// rendering of explain output from the tree that ran. Plans come from
// package plan; storage is read through a storage.Reader.
package exec

import (
	"time"

	"github.com/lodedb/lode/internal/query/plan"
	"github.com/lodedb/lode/internal/storage"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// State is the outcome of one Work call.
type State int

// Work outcomes.
const (
	Advanced State = iota
	NeedTime
	EOF
)

// Member is one result flowing between stages: a record id, and the index
// key that found it or the document once fetched.
type Member struct {
	RID uint64
	// Key and TypeBits are the index entry (IXSCAN); they stay valid until
	// the producing scan's next Work.
	Key      []byte
	TypeBits []byte
	// RKey is, for an index entry of a clustered collection, the cluster
	// key that reaches its record (FETCH's SeekKey); valid as Key is.
	RKey []byte
	// Doc is the document (stable), nil before FETCH.
	Doc bsoncore.Document
	// Pos is the positional match offset ($ projection), -1 if none.
	Pos int
	// Score is the text score ($text plans: TEXT_OR sets it).
	Score float64
}

// CommonStats are the figures every stage reports in executionStats.
type CommonStats struct {
	Works    int64
	Advanced int64
	NeedTime int64
	IsEOF    bool
	nanos    int64
}

// Stage is one executable plan stage.
type Stage interface {
	// Work does one unit of work.
	Work() (State, *Member, error)
	// Name is the stage name explain prints.
	Name() string
	// Stats returns the stage's common counters.
	Stats() *CommonStats
	// Children returns the input stages.
	Children() []Stage
	// Close releases iterators; it is safe to call more than once.
	Close()
	// explain appends the stage-specific fields; execStats adds the
	// execution counters.
	explain(b *bsoncore.DocumentBuilder, execStats bool)
}

// base holds what every stage shares.
type base struct {
	stats    CommonStats
	children []Stage
	timing   bool
}

func (b *base) Stats() *CommonStats { return &b.stats }
func (b *base) Children() []Stage   { return b.children }

// closeChildren closes the inputs.
func (b *base) closeChildren() {
	for _, c := range b.children {
		c.Close()
	}
}

// record counts one Work outcome.
func (b *base) record(st State, start time.Time) {
	b.stats.Works++
	switch st {
	case Advanced:
		b.stats.Advanced++
	case NeedTime:
		b.stats.NeedTime++
	case EOF:
		b.stats.IsEOF = true
	}
	if b.timing {
		b.stats.nanos += int64(time.Since(start))
	}
}

// now returns the current time when timing is on.
func (b *base) now() time.Time {
	if b.timing {
		return time.Now()
	}
	return time.Time{}
}

// slab copies documents into shared chunks so that results stay valid
// without one allocation per document. Chunks start small and double up to
// slabSize: a plan that returns one document (a queue claim, a findOne)
// must not allocate and clear 64 KiB for it.
type slab struct {
	buf  []byte
	next int // size of the next chunk
}

const (
	slabSize      = 64 << 10
	slabFirstSize = 1 << 10
)

// grow returns the size of a new chunk.
func (s *slab) grow() int {
	n := max(s.next, slabFirstSize)
	s.next = min(n*2, slabSize)
	return n
}

func (s *slab) copy(doc []byte) bsoncore.Document {
	if cap(s.buf)-len(s.buf) < len(doc) {
		s.buf = make([]byte, 0, max(s.grow(), len(doc)))
	}
	start := len(s.buf)
	s.buf = append(s.buf, doc...)
	return s.buf[start:len(s.buf):len(s.buf)]
}

// openIndexCursor opens a cursor over ix's entries in [lo, hi), told that
// its entries carry cluster keys when ix is a clustered collection's.
func openIndexCursor(r storage.Reader, ix *plan.Index, lo, hi []byte, reverse bool) (*storage.IndexCursor, error) {
	c, err := storage.NewIndexCursor(r, ix.ID, lo, hi, reverse)
	if err == nil && ix.InClustered {
		c.SetClustered()
	}
	return c, err
}
