package changestream

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
)

// LookupFunc returns the current version of the document with key in
// db.coll, or nil when there is none (fullDocument: updateLookup).
type LookupFunc func(ctx context.Context, db, coll string, key bsoncore.Document) (bsoncore.Document, error)

// Reader produces a stream's events from the oplog, in commit order. It
// never reads past the log's visible point, so an entry that commits late
// is not skipped, and reports only durable entries (durable). Next
// returns nil when the stream has caught up; a later Next continues from
// there.
type Reader struct {
	log    *oplog.Log
	scope  Scope
	spec   *Spec
	lookup LookupFunc
	ctx    context.Context

	pos      Token    // the last event delivered (or the resume point)
	scanned  oplog.TS // entries up to here are in queue or delivered
	queue    []event  // events read but not yet delivered
	ended    bool     // the invalidate event was delivered
	caughtUp bool     // the last Next found nothing new

	// A visible point not yet durable, and the commit sequence an fsync
	// must cover before entries up to it are reported (durable).
	pendVis oplog.TS
	pendSeq uint64
}

// maxFill bounds the events one read of the oplog queues.
const maxFill = 1000

// Open starts a stream over log for scope with spec's options.
func Open(ctx context.Context, log *oplog.Log, scope Scope, spec *Spec, lookup LookupFunc) (*Reader, error) {
	if log == nil {
		return nil, errs.New(errs.Location40573, "The $changeStream stage is only supported on replica sets; this Lode server runs without an oplog (--oplog-size-mb 0)")
	}
	r := &Reader{log: log, scope: scope, spec: spec, lookup: lookup, ctx: ctx}
	if spec.Resume == nil {
		// The start is a resume point the client keeps: durable first,
		// so that no timestamp at or before it can be lost in a crash
		// and given again to a later write the stream would then skip.
		vis := log.VisibleTS()
		if err := log.Sync(ctx); err != nil {
			return nil, err
		}
		r.pos, r.scanned = highWater(vis), vis
		return r, nil
	}
	r.pos = *spec.Resume
	r.scanned = r.pos.TS
	if r.pos.Flags&flagHighWater == 0 {
		r.scanned-- // the resume point's entry has later events to give
	}
	if r.log.Trimmed() > r.scanned {
		return nil, historyLost()
	}
	if r.pos.Flags&flagHighWater == 0 && !spec.AtTime {
		found := false
		err := log.Scan(r.pos.TS-1, r.pos.TS, func(oplog.TS, bsoncore.Document) error {
			found = true
			return oplog.ErrStop
		})
		if err != nil {
			return nil, err
		}
		if vis := log.VisibleTS(); !found && r.pos.TS <= vis {
			return nil, errs.New(errs.ChangeStreamFatalError, "cannot resume stream; the resume token was not found. %s", r.pos.Doc().String())
		}
	}
	return r, nil
}

func historyLost() error {
	return errs.New(errs.ChangeStreamHistoryLost, "Resume of change stream was not possible, as the resume point may no longer be in the oplog.")
}

// SetContext sets the context of the command being served (for lookups).
func (r *Reader) SetContext(ctx context.Context) { r.ctx = ctx }

// Next returns the next event, or nil when there is none yet (or the
// stream has ended).
func (r *Reader) Next() (bsoncore.Document, error) {
	for {
		if r.ended {
			return nil, nil
		}
		if len(r.queue) > 0 {
			ev := r.queue[0]
			r.queue[0] = event{}
			r.queue = r.queue[1:]
			r.pos = ev.tok
			r.ended = ev.ends
			r.caughtUp = false
			return r.complete(ev)
		}
		vis := r.log.VisibleTS()
		if vis <= r.scanned {
			r.caughtUp = true
			return nil, nil
		}
		vis, err := r.durable(vis)
		if err != nil {
			return nil, err
		}
		if vis <= r.scanned {
			r.caughtUp = true
			return nil, nil
		}
		if err := r.fill(vis); err != nil {
			return nil, err
		}
	}
}

// durable returns the newest point up to which the stream may report,
// given the log's visible point vis: a stream reports only durable
// changes, as mongod's do (they read majority-committed data, which on
// one node is journaled data). A point not yet durable asks for an fsync
// (Log.RequestSync; the requests of every stream are served together)
// and waits for it or any other (a j:true writer's, the periodic one);
// Wait wakes when it comes. The point kept is reported once its fsync has
// come, and only then a newer one taken, so that a stream over writes
// that never pause still moves. A database whose writes have failed
// makes no fsync any more: its failure is returned instead of waiting.
func (r *Reader) durable(vis oplog.TS) (oplog.TS, error) {
	if r.pendVis <= r.scanned {
		last, synced, _ := r.log.Durability()
		if synced >= last {
			return vis, nil
		}
		r.pendVis, r.pendSeq = vis, last
	}
	if _, synced, _ := r.log.Durability(); synced >= r.pendSeq {
		return r.pendVis, nil
	}
	if err := r.log.Failed(); err != nil {
		return r.scanned, err
	}
	// Asked again each time: an fsync already under way when the point
	// was taken may not cover it, and the next one requested after this
	// will.
	r.log.RequestSync()
	return r.scanned, nil
}

// fill queues the events of the entries after scanned, up to vis.
func (r *Reader) fill(vis oplog.TS) error {
	if r.log.Trimmed() > r.scanned {
		return historyLost()
	}
	last := r.scanned
	err := r.log.Scan(r.scanned, vis, func(ts oplog.TS, e bsoncore.Document) error {
		if len(r.queue) >= maxFill {
			return oplog.ErrStop
		}
		info := entryInfo{ts: ts, wall: e.Lookup("wall")}
		n := len(r.queue)
		r.queue = r.transform(r.queue, e, info, 0)
		// Drop what the resume point says was delivered already.
		w := n
		for _, ev := range r.queue[n:] {
			if r.pos.less(ev.tok) {
				r.queue[w] = ev
				w++
			}
		}
		r.queue = r.queue[:w]
		last = ts
		return nil
	})
	if err != nil {
		return err
	}
	if len(r.queue) < maxFill {
		last = vis
	}
	// Entries may have been trimmed while they were read.
	if r.log.Trimmed() > r.scanned {
		r.queue = nil
		return historyLost()
	}
	r.scanned = last
	return nil
}

// complete adds what an event's delivery needs: the current document
// (updateLookup), and the kept images (fullDocument whenAvailable or
// required, fullDocumentBeforeChange).
func (r *Reader) complete(ev event) (bsoncore.Document, error) {
	var extra []byte
	if ev.lookup && r.lookup != nil {
		doc, err := r.lookup(r.ctx, ev.db, ev.coll, ev.key)
		if err != nil {
			return nil, err
		}
		extra = appendDocOrNull(extra, "fullDocument", doc)
	}
	wantPost := ev.kind == "update" && (r.spec.FullDocument == "whenAvailable" || r.spec.FullDocument == "required")
	wantPre := r.spec.BeforeChange != "off" && (ev.kind == "update" || ev.kind == "replace" || ev.kind == "delete")
	if wantPost || wantPre {
		pre, post, _, err := r.log.Image(ev.tok.TS, ev.tok.Op)
		if err != nil {
			return nil, err
		}
		if wantPost {
			if post == nil && r.spec.FullDocument == "required" {
				return nil, imageMissing("post", ev)
			}
			extra = appendDocOrNull(extra, "fullDocument", post)
		}
		if wantPre {
			if pre == nil && r.spec.BeforeChange == "required" {
				return nil, imageMissing("pre", ev)
			}
			extra = appendDocOrNull(extra, "fullDocumentBeforeChange", pre)
		}
	}
	if extra == nil {
		return ev.doc, nil
	}
	idx, dst := bsoncore.AppendDocumentStart(nil)
	dst = append(dst, ev.doc[4:len(ev.doc)-1]...)
	dst = append(dst, extra...)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst, nil
}

func appendDocOrNull(dst []byte, key string, doc bsoncore.Document) []byte {
	if doc == nil {
		return bsoncore.AppendNullElement(dst, key)
	}
	return bsoncore.AppendDocumentElement(dst, key, doc)
}

func imageMissing(which string, ev event) error {
	return errs.New(errs.NoMatchingDocument, "Change stream was configured to require a %s-image for all update, delete and replace events, but the %s-image was not found for event: %s", which, which, ev.doc.String())
}

// Ended reports whether the stream delivered its invalidate event.
func (r *Reader) Ended() bool { return r.ended && len(r.queue) == 0 }

// CaughtUp reports whether the last Next found no event.
func (r *Reader) CaughtUp() bool { return r.caughtUp }

// ResumeToken is where the stream stands: after a batch that caught up,
// a high-water mark past everything read; otherwise the last event
// delivered (postBatchResumeToken).
func (r *Reader) ResumeToken() Token {
	if r.caughtUp && len(r.queue) == 0 && !r.ended {
		if hw := highWater(r.scanned); r.pos.less(hw) {
			return hw
		}
	}
	return r.pos
}

// Wait blocks until new entries are visible (or, for visible ones, until
// the fsync that makes them durable), d passes or ctx ends.
func (r *Reader) Wait(ctx context.Context, d time.Duration) {
	if len(r.queue) > 0 {
		return
	}
	vis, ch := r.log.Visible()
	if vis > r.scanned {
		// An error, or an fsync that completed in between, is for Next.
		if p, err := r.durable(vis); err != nil || p > r.scanned {
			return
		}
		_, _, ch = r.log.Durability()
		if p, err := r.durable(vis); err != nil || p > r.scanned {
			return
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}

// Close releases the reader.
func (r *Reader) Close() error { r.queue = nil; return nil }
