package engine

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/storage"
)

// Capped collections keep their documents in recordID order, which is
// insertion order. An insert that takes the collection over its size or
// max removes the oldest records in the same batch as the new document.
// Tailable cursors remember the last recordID they returned and continue
// after it on the next call.

// cappedInfo is the in-memory state of one capped collection incarnation.
type cappedInfo struct {
	// trimmed is the highest recordID trimming removed (under the
	// collection's writer lock); trimming continues after it to skip
	// tombstones.
	trimmed storage.RecordID
	// trimmedUpTo is the highest recordID removed to make room. It is
	// raised before the removing batch commits, so a reader that sees the
	// removal also sees the new value.
	trimmedUpTo atomic.Uint64
}

// cappedInsert inserts doc into the capped collection t.c and removes the
// oldest documents while the collection is over its size or max, all in
// one batch, which it commits. The caller holds the writer lock.
func (t *writeBatch) cappedInsert(doc bsoncore.Document) (uint64, error) {
	st := t.c.state
	if t.docs > 0 || t.metaDirty {
		if err := t.commit(); err != nil {
			return 0, err
		}
	}
	if !st.statsValid {
		if err := t.e.recount(t.c); err != nil {
			return 0, err
		}
	}
	rid, err := t.insert(doc)
	if err != nil {
		return 0, err
	}
	info := &st.capped
	count := st.count + t.countDelta
	size := st.dataSize + t.sizeDelta
	over := func() bool {
		return count > 1 && ((t.c.Max > 0 && count > t.c.Max) || size > t.c.Size)
	}
	if over() {
		it, err := storage.NewRecordCursor(t.e.db.Reader(), t.c.ID, false)
		if err != nil {
			return 0, fmt.Errorf("capped trim: %w", err)
		}
		it.SeekAfter(info.trimmed)
		for over() {
			rid, v, ok := it.Next()
			if !ok {
				break
			}
			old := uint64(rid)
			// Each member of a mongod replica set trims its own capped
			// collections: the deletions are not in the oplog.
			t.quiet = true
			err = t.remove(old, v)
			t.quiet = false
			if err != nil {
				it.Close()
				return 0, err
			}
			count--
			size -= int64(len(v))
			info.trimmed = rid
			if info.trimmedUpTo.Load() < old {
				info.trimmedUpTo.Store(old)
			}
		}
		if err := it.Err(); err != nil {
			it.Close()
			return 0, fmt.Errorf("capped trim: %w", err)
		}
		if err := it.Close(); err != nil {
			return 0, fmt.Errorf("capped trim: %w", err)
		}
	}
	if err := t.commit(); err != nil {
		return 0, err
	}
	return rid, nil
}

// checkCappedUpdate refuses an update that grows a document of a capped
// collection.
func checkCappedUpdate(c *collection, oldDoc, newDoc bsoncore.Document) error {
	if c.Capped && len(newDoc) > len(oldDoc) {
		return errs.New(errs.CannotGrowDocumentInCappedNamespace, "Cannot change the size of a document in a capped collection: %d != %d", len(oldDoc), len(newDoc))
	}
	return nil
}

// findTailable returns a tailable iterator over the capped collection c.
func (e *Engine) findTailable(ctx context.Context, c *collection, spec FindSpec, f *query.Filter, proj *query.Projection) (Iterator, error) {
	if !c.Capped {
		return nil, errs.New(errs.BadValue, "error processing query: ns=%s tailable cursor requested on non capped collection", c.NS())
	}
	if _, _, tn := query.TextOrBranch(f); tn != nil {
		return nil, errs.New(errs.NotImplemented, "$text on a tailable cursor is not supported by Lode")
	}
	if tn, _ := query.TextOf(f); tn != nil {
		return nil, errs.New(errs.NotImplemented, "$text on a tailable cursor is not supported by Lode")
	}
	if len(spec.Sort) > 5 {
		s, err := query.ParseSort(spec.Sort)
		if err != nil {
			return nil, err
		}
		if dir, ok := s.Natural(); !ok || dir < 0 {
			return nil, errs.New(errs.BadValue, "error processing query: ns=%s cannot use tailable option with a sort other than {$natural: 1}", c.NS())
		}
	}
	return &tailIter{ctx: ctx, e: e, c: c, info: &c.state.capped, filter: f, proj: proj, skip: spec.Skip}, nil
}

// tailIter streams a capped collection in insertion order. At the end of
// the data Next returns (nil, nil) and a later call continues after the
// last record returned, so a tailable cursor sees documents inserted
// since. It implements Iterator and the cursor's SetContext.
type tailIter struct {
	ctx    context.Context
	e      *Engine
	c      *collection
	info   *cappedInfo
	filter *query.Filter
	proj   *query.Projection
	skip   int64

	it     *storage.RecordCursor
	last   storage.RecordID // the last record examined
	closed bool
	slab   slab
}

// SetContext replaces the context bounding the next calls.
func (t *tailIter) SetContext(ctx context.Context) { t.ctx = ctx }

// Next implements Iterator.
func (t *tailIter) Next() (bsoncore.Document, error) {
	if t.closed {
		return nil, nil
	}
	if t.it == nil {
		if t.e.closed.Load() {
			return nil, errs.New(errs.ShutdownInProgress, "The server is in quiesce mode and will shut down")
		}
		if cur := t.e.cat.Load().lookup(t.c.DB, t.c.Name); cur == nil || cur.state != t.c.state {
			return nil, errs.New(errs.QueryPlanKilled, "collection dropped: %s", t.c.NS())
		}
		it, err := storage.NewRecordCursor(t.e.db.Reader(), t.c.ID, false)
		if err != nil {
			return nil, fmt.Errorf("tailable cursor: %w", err)
		}
		it.SeekAfter(t.last)
		// Read trimmedUpTo after the cursor fixed its view (see cappedInfo).
		if t.last > 0 && t.info.trimmedUpTo.Load() > uint64(t.last) {
			it.Close()
			return nil, errs.New(errs.CappedPositionLost, "CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(%d)", t.last)
		}
		t.it = it
	}
	for {
		rid, doc, ok := t.it.Next()
		if !ok {
			if err := t.it.Err(); err != nil {
				t.release()
				return nil, fmt.Errorf("tailable cursor: %w", err)
			}
			return nil, t.release()
		}
		if t.ctx != nil {
			if err := t.ctx.Err(); err != nil {
				return nil, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
			}
		}
		t.last = rid
		matched, pos, err := t.filter.MatchChecked(doc)
		if err != nil {
			t.release()
			return nil, err
		}
		if matched {
			if t.skip > 0 {
				t.skip--
			} else {
				out := t.slab.copy(doc)
				if t.proj != nil {
					return t.proj.Apply(out, pos)
				}
				return out, nil
			}
		}
	}
}

// release closes the record cursor at the end of the current data; the
// next call opens a fresh one that sees newer commits.
func (t *tailIter) release() error {
	if t.it == nil {
		return nil
	}
	err := t.it.Close()
	t.it = nil
	if err != nil {
		return fmt.Errorf("tailable cursor: %w", err)
	}
	return nil
}

// Close implements Iterator.
func (t *tailIter) Close() error {
	t.closed = true
	return t.release()
}
