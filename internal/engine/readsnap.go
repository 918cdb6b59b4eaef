package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lodedb/lode/internal/errs"
	"github.com/lodedb/lode/internal/oplog"
	"github.com/lodedb/lode/internal/storage"
)

// Snapshot reads (readConcern "snapshot" outside a transaction).
//
// mongod serves such a read at a cluster time: the first read of a
// snapshot session picks the newest majority-committed time and returns
// it as atClusterTime, and the session's later reads name that time and
// see the same data, whatever was written since, for as long as the
// storage engine keeps the history (minSnapshotHistoryWindowInSeconds).
//
// Lode keeps no versions by timestamp. It keeps instead the Pebble
// snapshot that the first read took, under the cluster time it reported,
// and serves later reads at that time from it. A snapshot is dropped
// once it has gone unused for the window and no open cursor reads it;
// a read at a time Lode holds no snapshot for (an older time, or one it
// never reported) fails with SnapshotTooOld (239), as a read before
// mongod's history window does.
//
// The snapshot holds every write stamped at or before its time. Taken
// while other writes were committing, it may also hold some of those,
// stamped just after it.

// maxHeldSnapshots bounds the snapshots kept at once; past it the least
// recently used one that no cursor reads is dropped early.
const maxHeldSnapshots = 1024

// heldSnapshot is one Pebble snapshot served at a cluster time.
type heldSnapshot struct {
	ts      oplog.TS
	seq     uint64 // every commit up to this sequence is in snap
	snap    *storage.Snapshot
	refs    int       // open readers (statements, cursors)
	lastUse time.Time // when the last reader let go
	closed  bool
}

// snapHistory is the engine's table of held snapshots.
type snapHistory struct {
	mu   sync.Mutex
	byTS map[oplog.TS]*heldSnapshot
}

type readSnapKey struct{}

// SnapshotRead returns ctx carrying a snapshot for a snapshot read, and
// the cluster time it is at. Without at (hasAt false) it is the newest
// visible time; with at, the snapshot held for that time. Reads under
// the returned context (find, count, distinct, aggregate, and the
// cursors they open) read the snapshot; release ends the statement's
// own use of it.
func (e *Engine) SnapshotRead(ctx context.Context, at oplog.TS, hasAt bool) (context.Context, oplog.TS, func(), error) {
	if err := e.checkOpen(); err != nil {
		return nil, 0, nil, err
	}
	h := &e.snaps
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byTS == nil {
		h.byTS = map[oplog.TS]*heldSnapshot{}
	}
	h.expireLocked(time.Duration(e.params.SnapshotHistorySeconds.Load()) * time.Second)
	if hasAt {
		if hs := h.byTS[at]; hs != nil {
			hs.refs++
			return context.WithValue(ctx, readSnapKey{}, hs), at, hs.release(h), nil
		}
		// A time never served before can be served only if it is still
		// the present: nothing committed after it.
		if vis := e.visibleTS(); vis != at {
			return nil, 0, nil, errs.New(errs.SnapshotTooOld, "Read timestamp %s is older than the oldest available timestamp: Lode keeps the snapshots of snapshot reads, not older versions, and holds none for this time.", tsText(at))
		}
	}
	ts := at
	if !hasAt {
		ts = e.visibleTS()
		if e.oplog == nil {
			// Without an oplog writes do not advance the clock, so one
			// time cannot name one state: every new snapshot gets its own.
			ts = e.clock.Now()
		}
		if hs := h.byTS[ts]; hs != nil && e.oplog != nil {
			hs.refs++
			return context.WithValue(ctx, readSnapKey{}, hs), ts, hs.release(h), nil
		}
	}
	if len(h.byTS) >= maxHeldSnapshots {
		h.evictOneLocked()
	}
	seq := e.db.LastCommit() // before the snapshot: commits up to it ended before
	hs := &heldSnapshot{ts: ts, seq: seq, snap: e.db.NewSnapshot(), refs: 1}
	h.byTS[ts] = hs
	return context.WithValue(ctx, readSnapKey{}, hs), ts, hs.release(h), nil
}

// visibleTS is the newest cluster time every write at or before which is
// readable.
func (e *Engine) visibleTS() oplog.TS {
	if e.oplog != nil {
		return e.oplog.VisibleTS()
	}
	return e.clock.Last()
}

// readSnapFrom returns the held snapshot a snapshot read's context
// carries, with a reference taken, and the commit sequence it holds, or
// nil.
func (e *Engine) readSnapFrom(ctx context.Context) (storage.Reader, func(), uint64) {
	hs, _ := ctx.Value(readSnapKey{}).(*heldSnapshot)
	if hs == nil {
		return nil, nil, 0
	}
	h := &e.snaps
	h.mu.Lock()
	defer h.mu.Unlock()
	if hs.closed {
		return nil, nil, 0
	}
	hs.refs++
	return hs.snap.Reader(), hs.release(h), hs.seq
}

// release returns a function that drops one reference, once.
func (hs *heldSnapshot) release(h *snapHistory) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			hs.refs--
			hs.lastUse = time.Now()
			h.mu.Unlock()
		})
	}
}

// expireLocked drops the snapshots unused for longer than window.
func (h *snapHistory) expireLocked(window time.Duration) {
	now := time.Now()
	for ts, hs := range h.byTS {
		if hs.refs == 0 && now.Sub(hs.lastUse) > window {
			hs.closeLocked()
			delete(h.byTS, ts)
		}
	}
}

// evictOneLocked drops the least recently used snapshot no reader holds.
func (h *snapHistory) evictOneLocked() {
	var oldest *heldSnapshot
	for _, hs := range h.byTS {
		if hs.refs == 0 && (oldest == nil || hs.lastUse.Before(oldest.lastUse)) {
			oldest = hs
		}
	}
	if oldest != nil {
		oldest.closeLocked()
		delete(h.byTS, oldest.ts)
	}
}

func (hs *heldSnapshot) closeLocked() {
	if !hs.closed {
		hs.closed = true
		hs.snap.Close()
	}
}

// closeAll releases every held snapshot, so that the database can close.
func (h *snapHistory) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ts, hs := range h.byTS {
		hs.closeLocked()
		delete(h.byTS, ts)
	}
}

// HeldSnapshots returns how many snapshots snapshot reads hold.
func (e *Engine) HeldSnapshots() int {
	e.snaps.mu.Lock()
	defer e.snaps.mu.Unlock()
	return len(e.snaps.byTS)
}

func tsText(t oplog.TS) string {
	return fmt.Sprintf("Timestamp(%d, %d)", t.Sec(), t.Inc())
}
