package engine

import (
	"context"
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/query"
	"github.com/lodedb/lode/internal/query/exec"
	"github.com/lodedb/lode/internal/storage"
)

// tailOplog returns a tailable iterator over the oplog's entries that
// match f, oldest first. Each run is a COLLSCAN of the entries from the
// last one examined up to the visibility point of the moment; at its end
// Next returns (nil, nil), and the next call starts a run over what
// became visible since. It implements the cursor's Waiter (an awaitData
// getMore waits for the visibility point to move), Ender (a read whose ts
// bound is behind it is over) and SetContext.
func (e *Engine) tailOplog(ctx context.Context, spec FindSpec, f *query.Filter, proj *query.Projection) (Iterator, error) {
	if _, _, tn := query.TextOrBranch(f); tn != nil {
		return nil, errs.New(errs.IndexNotFound, "text index required for $text query") // the oplog has no text index
	}
	if tn, _ := query.TextOf(f); tn != nil {
		return nil, errs.New(errs.IndexNotFound, "text index required for $text query")
	}
	tailErr := errs.New(errs.BadValue, "error processing query: ns=%s.%s cannot use tailable option with a sort other than {$natural: 1}", OplogDB, OplogColl)
	if len(spec.Sort) > 5 {
		s, err := query.ParseSort(spec.Sort)
		if err != nil {
			return nil, err
		}
		if dir, ok := s.Natural(); (!ok && !s.Empty()) || dir < 0 {
			return nil, tailErr
		}
	}
	if h, ok := spec.Hint.DocumentOK(); ok && len(h) > 5 {
		if el := h.Index(0); el.Key() == "$natural" && bsonNegative(el.Value()) {
			return nil, tailErr
		}
	}
	t := &oplogTail{ctx: ctx, log: e.oplog, db: e.db, filter: f, proj: proj, skip: spec.Skip,
		showRecordID: spec.ShowRecordID, hi: math.MaxUint64}
	tsBounds(f.Root(), &t.lo, &t.hi)
	if t.lo > 0 {
		t.seen = t.lo - 1
	}
	return t, nil
}

// bsonNegative reports whether a numeric value is below zero.
func bsonNegative(v bsoncore.Value) bool {
	switch v.Type {
	case bsoncore.TypeInt32:
		return v.Int32() < 0
	case bsoncore.TypeInt64:
		return v.Int64() < 0
	case bsoncore.TypeDouble:
		return v.Double() < 0
	}
	return false
}

// oplogTail is a tailable read of the oplog.
type oplogTail struct {
	ctx          context.Context
	log          *oplog.Log
	db           *storage.DB
	filter       *query.Filter
	proj         *query.Projection
	skip         int64
	showRecordID bool
	// lo and hi bound the timestamps the filter can match.
	lo, hi oplog.TS

	// seen: every entry up to it has been examined.
	seen oplog.TS
	// scan is the current run, over the entries up to runEnd.
	scan    *exec.CollScan
	runEnd  oplog.TS
	started bool
	done    bool
}

// SetContext replaces the context bounding the next calls.
func (t *oplogTail) SetContext(ctx context.Context) { t.ctx = ctx }

// Ended reports that the read's ts bound is behind it.
func (t *oplogTail) Ended() bool { return t.done }

// Wait returns when the visible point moves past what the read has seen,
// after d, or when ctx ends.
func (t *oplogTail) Wait(ctx context.Context, d time.Duration) {
	vis, ch := t.log.Visible()
	if vis > t.seen || t.scan != nil || t.done {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ch:
	case <-tm.C:
	case <-ctx.Done():
	}
}

// Next implements Iterator: the next matching entry, or nil at the end
// of what is visible.
func (t *oplogTail) Next() (bsoncore.Document, error) {
	if t.done {
		return nil, nil
	}
	if t.scan == nil {
		if t.started && t.log.Trimmed() > t.seen {
			// Entries this read had not reached were trimmed away.
			return nil, errs.New(errs.CappedPositionLost, "CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(%d)", int64(t.seen))
		}
		t.started = true
		vis := t.log.VisibleTS()
		upTo := min(vis, t.hi)
		if upTo <= t.seen {
			t.done = t.seen >= t.hi
			return nil, nil
		}
		t.runEnd = upTo
		t.scan = exec.NewSourceScan(t.db.Reader(), oplog.Records{Lo: t.seen + 1, Hi: upTo}, 1, t.filter, nil, false)
	}
	for n := 0; ; n++ {
		if n&1023 == 0 && t.ctx != nil && t.ctx.Err() != nil {
			return nil, errs.New(errs.MaxTimeMSExpired, "operation exceeded time limit")
		}
		st, m, err := t.scan.Work()
		if err != nil {
			t.release()
			return nil, err
		}
		switch st {
		case exec.EOF:
			t.release()
			t.seen = t.runEnd
			t.done = t.seen >= t.hi
			return nil, nil
		case exec.NeedTime:
			continue
		}
		t.seen = oplog.TS(m.RID)
		if t.skip > 0 {
			t.skip--
			continue
		}
		doc := m.Doc
		if t.proj != nil {
			if doc, err = t.proj.Apply(doc, m.Pos); err != nil {
				return nil, err
			}
		}
		if t.showRecordID {
			doc = withRecordID(doc, m.RID)
		}
		return doc, nil
	}
}

// release ends the current run.
func (t *oplogTail) release() {
	if t.scan != nil {
		t.scan.Close()
		t.scan = nil
	}
}

// Close implements Iterator.
func (t *oplogTail) Close() error {
	t.release()
	t.done = true
	return nil
}
