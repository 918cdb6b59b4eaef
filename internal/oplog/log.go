package oplog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

// Log is an open operation log.
type Log struct {
	db    *storage.DB
	clock Clock
	vis   visibility

	max  atomic.Int64 // bound in bytes
	size atomic.Int64 // bytes of the entries present (their BSON lengths)
	n    atomic.Int64 // entries present

	trimMu  sync.Mutex
	chunks  chunks        // trim.go
	trimmed atomic.Uint64 // newest timestamp trimmed away
}

// Open opens the log stored in db, bounded at maxBytes. It reads the
// existing entries once, to learn the newest timestamp (the clock
// continues above it) and the log's size.
func Open(db *storage.DB, maxBytes int64) (*Log, error) {
	l := &Log{db: db}
	l.max.Store(maxBytes)
	l.chunks.size = chunkSize(maxBytes)
	it, err := storage.NewOplogCursor(db.Reader(), 0, ^uint64(0), false)
	if err != nil {
		return nil, fmt.Errorf("oplog: open: %w", err)
	}
	var newest TS
	for {
		rid, v, ok := it.Next()
		if !ok {
			break
		}
		ts := TS(rid)
		n, last, bytes := storedSpan(v, ts)
		l.size.Add(bytes)
		l.n.Add(n)
		l.chunks.add(ts, last, bytes, n)
		newest = last
	}
	if err := errors.Join(it.Err(), it.Close()); err != nil {
		return nil, fmt.Errorf("oplog: open: %w", err)
	}
	if err := l.countImages(); err != nil {
		return nil, fmt.Errorf("oplog: open: %w", err)
	}
	if v, ok, err := db.GetMeta(trimmedMeta, nil); err != nil {
		return nil, fmt.Errorf("oplog: open: %w", err)
	} else if ok && len(v) == 8 {
		l.trimmed.Store(binary.BigEndian.Uint64(v))
	}
	l.clock.advance(max(newest, TS(l.trimmed.Load())))
	l.vis.init(newest)
	return l, nil
}

// Clock is the log's timestamp source, which is also the deployment's
// cluster time.
func (l *Log) Clock() *Clock { return &l.clock }

// Ticket is a staged batch's reservation, ended by Done.
type Ticket struct {
	first, last TS
	bytes       int64
	n           int64
}

// Last is the timestamp of the ticket's newest entry (0: none).
func (t Ticket) Last() TS { return t.last }

// Stage gives ents consecutive timestamps and writes them into b. The
// caller commits b and then calls Done with the ticket, whether or not
// the commit succeeded. An empty ents stages nothing.
func (l *Log) Stage(b *storage.Batch, ents []Entry) (Ticket, error) {
	if len(ents) == 0 {
		return Ticket{}, nil
	}
	l.clock.mu.Lock()
	first := l.clock.reserveLocked(len(ents))
	last := first + TS(len(ents)-1)
	l.vis.add(first, last)
	l.clock.mu.Unlock()
	tk := Ticket{first: first, last: last, n: int64(len(ents))}
	wall := time.Now()
	bp := stageBufs.Get().(*[]byte)
	buf := (*bp)[:0] // Set copies it, so it is reused
	defer func() {
		if cap(buf) <= maxStageBuf {
			*bp = buf[:0]
			stageBufs.Put(bp)
		}
	}()
	for i := 0; i < len(ents); i++ {
		ts := first + TS(i)
		var n int64
		if k := runLength(ents[i:]); k > 0 {
			buf, n = appendRun(buf[:0], ents[i:i+k], ts, wall)
			if err := storage.SetOplogEntry(b, uint64(ts), buf); err != nil {
				l.vis.end(first)
				return Ticket{}, fmt.Errorf("oplog: stage: %w", err)
			}
			tk.bytes += n
			i += k - 1
			continue
		}
		buf, n = ents[i].appendStored(buf[:0], ts, wall)
		if err := storage.SetOplogEntry(b, uint64(ts), buf); err != nil {
			l.vis.end(first)
			return Ticket{}, fmt.Errorf("oplog: stage: %w", err)
		}
		tk.bytes += n
		for j := range ents[i].Images {
			im := &ents[i].Images[j]
			d := im.doc()
			if err := storage.SetOplogImage(b, uint64(ts), im.Op, d); err != nil {
				l.vis.end(first)
				return Ticket{}, fmt.Errorf("oplog: stage: %w", err)
			}
			tk.bytes += int64(len(d))
		}
	}
	return tk, nil
}

// stageBufs are Stage's encoding buffers, kept between batches (a
// single insert's entry grew one from nothing in six steps).
var stageBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// maxStageBuf bounds the buffer a Stage gives back: a run can be 32 KiB,
// a large document 16 MiB.
const maxStageBuf = 64 << 10

// Image returns the pre- and post-image of operation op of the entry at
// ts; found is false when none was kept (or it was trimmed).
func (l *Log) Image(ts TS, op uint32) (pre, post bsoncore.Document, found bool, err error) {
	v, ok, err := l.db.GetOplogImage(uint64(ts), op)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	d := bsoncore.Document(v)
	pre, _ = d.Lookup("pre").DocumentOK()
	post, _ = d.Lookup("post").DocumentOK()
	return pre, post, true, nil
}

// Done ends a staged batch's reservation. committed says whether its
// batch reached the database; if it did, the log may now be over its
// bound, and the oldest entries are trimmed.
func (l *Log) Done(tk Ticket, committed bool) {
	if tk.n == 0 {
		return
	}
	l.vis.end(tk.first)
	if !committed {
		return
	}
	l.size.Add(tk.bytes)
	l.n.Add(tk.n)
	l.trimMu.Lock()
	l.chunks.add(tk.first, tk.last, tk.bytes, tk.n)
	l.trimMu.Unlock()
	if l.size.Load() > l.max.Load() {
		l.trim()
	}
}

// Sync makes every entry visible so far durable: an fsync of the WAL
// covering every commit so far, shared with the writers waiting for one
// (none when nothing was committed since the last).
func (l *Log) Sync(ctx context.Context) error { return l.db.Sync(ctx) }

// RequestSync asks for an fsync soon without waiting for it
// (storage.DB.RequestSync); Durability's channel tells when one completes.
func (l *Log) RequestSync() { l.db.RequestSync() }

// Failed returns the database's failure once a write to its files has
// failed (storage.DB.Failed): no fsync will come after it.
func (l *Log) Failed() error { return l.db.Failed() }

// Durability returns the newest commit sequence, which covers every entry
// visible before the call, and the sequence the WAL's fsyncs have covered
// with a channel closed at the next fsync (storage.DB.Synced): an entry is
// durable once the second reaches the first.
func (l *Log) Durability() (last, synced uint64, next <-chan struct{}) {
	last = l.db.LastCommit()
	synced, next = l.db.Synced()
	return last, synced, next
}

// Visible returns the newest timestamp a reader may read up to
// (VisibleTS), and a channel closed when it moves.
func (l *Log) Visible() (TS, <-chan struct{}) {
	l.clock.mu.Lock()
	defer l.clock.mu.Unlock()
	l.vis.mu.Lock()
	defer l.vis.mu.Unlock()
	if l.vis.changed == nil {
		l.vis.changed = make(chan struct{})
	}
	return l.visibleLocked(), l.vis.changed
}

// VisibleTS returns the newest timestamp a reader may read up to. With no
// batch in flight that is the clock's newest timestamp: nothing can
// commit at or below it any more.
func (l *Log) VisibleTS() TS {
	l.clock.mu.Lock()
	defer l.clock.mu.Unlock()
	l.vis.mu.Lock()
	defer l.vis.mu.Unlock()
	return l.visibleLocked()
}

// visibleLocked is VisibleTS with both locks held.
func (l *Log) visibleLocked() TS {
	if len(l.vis.open) == 0 && l.clock.last > l.vis.visible {
		return l.clock.last
	}
	return l.vis.visible
}

// Stats are the log's size figures.
type Stats struct {
	MaxBytes, Bytes, Count int64
	First, Last            TS // 0 when empty
}

// Stats returns the log's bound, size and the timestamps of its oldest
// and newest entries.
func (l *Log) Stats() (Stats, error) {
	st := Stats{MaxBytes: l.max.Load(), Bytes: l.size.Load(), Count: l.n.Load()}
	r := l.db.Reader()
	for _, reverse := range []bool{false, true} {
		c, err := storage.NewOplogCursor(r, 0, ^uint64(0), reverse)
		if err != nil {
			return st, fmt.Errorf("oplog: stats: %w", err)
		}
		if k, v, ok := c.Next(); ok {
			if reverse {
				_, last, _ := storedSpan(v, TS(k)) // a run ends after its key
				st.Last = last
			} else {
				st.First = TS(k)
			}
		}
		err = errors.Join(c.Err(), c.Close())
		if err != nil {
			return st, fmt.Errorf("oplog: stats: %w", err)
		}
	}
	return st, nil
}

// ErrStop ends a Scan early without an error.
var ErrStop = errors.New("stop")

// Scan calls fn with the entries whose timestamps are in (after, upTo],
// oldest first, from a consistent view of the log. upTo is normally the
// Visible timestamp. fn may keep the document.
func (l *Log) Scan(after, upTo TS, fn func(ts TS, doc bsoncore.Document) error) error {
	if upTo <= after {
		return nil
	}
	return l.scan(after+1, upTo, false, fn)
}

// ScanReverse is Scan newest first: entries in [from, upTo] from upTo
// down.
func (l *Log) ScanReverse(from, upTo TS, fn func(ts TS, doc bsoncore.Document) error) error {
	if upTo < from {
		return nil
	}
	return l.scan(from, upTo, true, fn)
}

// scan calls fn with the entries in [lo, hi] in either order.
func (l *Log) scan(lo, hi TS, reverse bool, fn func(ts TS, doc bsoncore.Document) error) error {
	it, err := openCursor(l.db.Reader(), lo, hi, reverse)
	if err != nil {
		return fmt.Errorf("oplog: scan: %w", err)
	}
	defer it.Close()
	for {
		// A rebuilt document is the reader's to keep (readers such as
		// change streams hold parts of an entry past the callback).
		ts, doc, ok := it.Next()
		if !ok {
			return it.Err()
		}
		if err := fn(ts, doc); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
}

// countImages adds the sizes of the kept images to the log's size and to
// the chunks holding their entries (both are in timestamp order).
func (l *Log) countImages() error {
	it, err := storage.NewOplogImageCursor(l.db.Reader())
	if err != nil {
		return err
	}
	c := 0
	for {
		rid, v, ok := it.Next()
		if !ok {
			break
		}
		ts := TS(rid)
		n := storedLen(v)
		l.size.Add(n)
		for c < len(l.chunks.full) && l.chunks.full[c].last < ts {
			c++
		}
		if c < len(l.chunks.full) {
			l.chunks.full[c].bytes += n
		} else {
			l.chunks.cur.bytes += n
		}
	}
	return errors.Join(it.Err(), it.Close())
}
