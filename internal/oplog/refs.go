package oplog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lodedb/lode/internal/storage"
)

// A reference run: a run (runs.go) of a bulk insert whose documents are
// not copied into the log. They are the records the same batch wrote,
// consecutive RecordIDs of one collection, and the run names them:
//
//	magic [4]byte{0, 0, 0, 0}
//	version byte (3)
//	flags byte (flagUI)
//	wall: zigzag varint, milliseconds after the first timestamp's second
//	ns: uvarint length, bytes
//	ui: 16 bytes when flagUI
//	n: uvarint, the number of entries (at least 2)
//	coll: uvarint, the collection's storage id
//	rid: uvarint, the first entry's RecordID (entry i is record rid+i)
//	bytes: uvarint, the total length of the entries' BSON documents
//
// A load wrote each document twice, in its collection and in the log,
// and compressed and synced both: about a tenth of an event-log load's
// insert CPU (docs/benchmarks.md, "Issue 33: oplog entries that refer to
// their records").
//
// The records must stay as they were for as long as the run is in the
// log. So before a record of a reference run is updated or deleted, the
// writer materializes the run (Unref): it rewrites it as ordinary runs
// holding the documents, committed before the change. A dropped
// collection's records stay instead, until the log is trimmed past the
// last run that refers to them (RetainFor, storage.RetainRecords).
// Readers read a reference run's records at the point in time they read
// the run (storage.OplogCursor's Records), where they are still the
// inserted documents.
const storedRefRun = 3

// minRefBytes is the smallest batch, in bytes of inserted documents,
// whose runs refer to their records: a bulk insert's (storage commits
// those of 512 KiB and more by ingestion). Smaller batches keep their
// copies, so that an update soon after a few inserts has nothing to
// materialize.
const minRefBytes = 256 << 10

// refBytes is the total length of the documents of ents that could be
// referred to.
func refBytes(ents []Entry) int {
	n := 0
	for i := range ents {
		if ents[i].RID != 0 {
			n += len(ents[i].O)
		}
	}
	return n
}

// byRef reports whether the run ents may be stored as a reference run:
// each names its record, one collection's, with consecutive RecordIDs.
func byRef(ents []Entry) bool {
	for i := range ents {
		e := &ents[i]
		if e.RID == 0 || e.Coll != ents[0].Coll || e.RID != ents[0].RID+uint64(i) {
			return false
		}
	}
	return true
}

// appendRefRun appends the reference run of ents, whose first entry is
// at first; n is the total length of the BSON documents readers will
// see.
func appendRefRun(dst []byte, ents []Entry, first TS, wall time.Time) (out []byte, n int64) {
	flags := byte(0)
	if ents[0].UI != nil {
		flags |= flagUI
	}
	dst = append(dst, 0, 0, 0, 0, storedRefRun, flags)
	dst = binary.AppendVarint(dst, wall.UnixMilli()-int64(first.Sec())*1000)
	dst = binary.AppendUvarint(dst, uint64(len(ents[0].NS)))
	dst = append(dst, ents[0].NS...)
	if ents[0].UI != nil {
		dst = append(dst, ents[0].UI[:]...)
	}
	for i := range ents {
		n += fullLen(len(ents[i].NS), len(ents[i].O), 0, ents[i].UI != nil, false)
	}
	dst = binary.AppendUvarint(dst, uint64(len(ents)))
	dst = binary.AppendUvarint(dst, ents[0].Coll)
	dst = binary.AppendUvarint(dst, ents[0].RID)
	dst = binary.AppendUvarint(dst, uint64(n))
	return dst, n
}

// isRefRun reports whether v is a stored reference run.
func isRefRun(v []byte) bool { return isCompact(v) && v[4] == storedRefRun }

// refRun is a parsed reference run.
type refRun struct {
	run       // docs filled by loadDocs
	coll, rid uint64
	bytes     int64
}

func parseRefRun(v []byte, first TS) (r refRun, err error) {
	if len(v) < 6 || v[4] != storedRefRun {
		return r, errBadStored
	}
	r.first = first
	var rest []byte
	if r.wallMs, r.ns, r.ui, rest, err = parseHeader(v[6:], v[5], first); err != nil {
		return r, err
	}
	var vals [4]uint64
	for i := range vals {
		x, k := binary.Uvarint(rest)
		if k <= 0 {
			return r, errBadStored
		}
		vals[i], rest = x, rest[k:]
	}
	if vals[0] < 2 || vals[0] > maxRunEntries || vals[2] == 0 || len(rest) != 0 {
		return r, errBadStored
	}
	r.n, r.coll, r.rid, r.bytes = int(vals[0]), vals[1], vals[2], int64(vals[3])
	return r, nil
}

// loadDocs reads the run's documents, records rid to rid+n-1 of its
// collection at cur's point in time, into dst's space.
func (r *refRun) loadDocs(cur *storage.OplogCursor, dst []byte) ([]byte, error) {
	rc, err := cur.Records(r.coll, storage.RecordID(r.rid), storage.RecordID(r.rid+uint64(r.n)))
	if err != nil {
		return nil, err
	}
	dst = dst[:0]
	want := r.rid
	for {
		rid, doc, ok := rc.Next()
		if !ok {
			break
		}
		if uint64(rid) != want {
			break
		}
		dst = append(dst, doc...)
		want++
	}
	err = errors.Join(rc.Err(), rc.Close())
	if err != nil {
		return nil, err
	}
	if want != r.rid+uint64(r.n) {
		return nil, fmt.Errorf("record %d of collection %d is missing", want, r.coll)
	}
	return dst, nil
}

// refSpan is a reference run the log holds: records rid to rid+n-1 of a
// collection, entries ts to ts+n-1.
type refSpan struct {
	rid uint64
	n   int
	ts  TS
}

// refIndex finds, for a record, the reference run that names it. It holds
// every reference run in the log (read at Open, added as batches commit,
// removed as the log is trimmed) and may hold some already materialized,
// which a lookup finds out and forgets.
type refIndex struct {
	mu     sync.RWMutex
	n      atomic.Int64         // live spans held: 0 spares writers the lock
	byColl map[uint64][]refSpan // sorted by rid; n 0: dead (forget)
	dead   int
}

// add notes the reference runs of a committed batch.
func (x *refIndex) add(coll uint64, spans []refSpan) {
	if len(spans) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byColl == nil {
		x.byColl = map[uint64][]refSpan{}
	}
	old := x.byColl[coll]
	s := append(old, spans...)
	// Spans come in rising order (RecordIDs only grow); only the new
	// ones and where they join are checked, so that Open, adding one
	// run at a time, stays linear.
	byRID := func(a, b refSpan) int { return cmpU64(a.rid, b.rid) }
	if (len(old) > 0 && old[len(old)-1].rid > spans[0].rid) || !slices.IsSortedFunc(spans, byRID) {
		slices.SortFunc(s, byRID)
	}
	x.byColl[coll] = s
	x.n.Add(int64(len(spans)))
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// find returns the span of coll holding record rid.
func (x *refIndex) find(coll, rid uint64) (refSpan, bool) {
	if x.n.Load() == 0 {
		return refSpan{}, false
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.byColl[coll]
	i := sort.Search(len(s), func(i int) bool { return s[i].rid > rid }) - 1
	if i < 0 || rid >= s[i].rid+uint64(s[i].n) {
		return refSpan{}, false
	}
	return s[i], true
}

// spans returns coll's spans.
func (x *refIndex) spans(coll uint64) []refSpan {
	if x.n.Load() == 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []refSpan
	for _, sp := range x.byColl[coll] {
		if sp.n > 0 {
			out = append(out, sp)
		}
	}
	return out
}

// forget removes coll's span sp (found by find or spans). It marks the
// span dead, so that a collection's runs materialized one by one (a
// deleteMany over a loaded collection) do not each move the rest; the
// dead are dropped once they are half.
func (x *refIndex) forget(coll uint64, sp refSpan) {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.byColl[coll]
	i := sort.Search(len(s), func(i int) bool { return s[i].rid >= sp.rid })
	if i == len(s) || s[i].rid != sp.rid || s[i].ts != sp.ts || s[i].n == 0 {
		return
	}
	s[i].n = 0
	x.n.Add(-1)
	x.dead++
	if x.dead > int(x.n.Load()) {
		x.compact()
	}
}

// forgetColl removes every span of coll.
func (x *refIndex) forgetColl(coll uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, sp := range x.byColl[coll] {
		if sp.n == 0 {
			x.dead--
		} else {
			x.n.Add(-1)
		}
	}
	delete(x.byColl, coll)
}

// compact drops the dead spans; x.mu is held.
func (x *refIndex) compact() {
	for coll, s := range x.byColl {
		s = slices.DeleteFunc(s, func(sp refSpan) bool { return sp.n == 0 })
		if len(s) == 0 {
			delete(x.byColl, coll)
		} else {
			x.byColl[coll] = s
		}
	}
	x.dead = 0
}

// trim forgets the spans whose entries are at or before ts.
func (x *refIndex) trim(ts TS) {
	if x.n.Load() == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.compact()
	for coll, s := range x.byColl {
		kept := s[:0]
		for _, sp := range s {
			if sp.ts+TS(sp.n-1) > ts {
				kept = append(kept, sp)
			}
		}
		x.n.Add(int64(len(kept) - len(s)))
		if len(kept) == 0 {
			delete(x.byColl, coll)
		} else {
			x.byColl[coll] = kept
		}
	}
}

// Unref makes sure record rid of collection coll (storage ids) may change:
// if a reference run of the log names it, the run is first rewritten with
// the documents it refers to, and committed. A materialized run means
// what the reference run meant, so it needs no part in the change's own
// batch (nor in its transaction); committed first, it is in the WAL
// before the change, and durable whenever the change is. The caller
// holds the collection's writer lock, so the records are as inserted.
func (l *Log) Unref(coll, rid uint64) error {
	sp, ok := l.refs.find(coll, rid)
	if !ok {
		return nil
	}
	return l.materializeSpans(coll, []refSpan{sp})
}

// UnrefCollection materializes every reference run naming records of
// collection coll, in batches of about unrefBatch bytes. The caller holds
// the collection's writer lock.
func (l *Log) UnrefCollection(coll uint64) error {
	return l.materializeSpans(coll, l.refs.spans(coll))
}

// RetainFor returns, for collection coll about to be dropped, the
// timestamp of the last entry that refers to its records (0: none). The
// drop then keeps the records (storage.RetainRecords) instead of
// rewriting every such run with its documents, which for a collection
// just loaded would write it all again; the log deletes them once it is
// trimmed past that entry. mongod's oplog holds copies of the documents
// just as long.
func (l *Log) RetainFor(coll uint64) TS {
	var last TS
	for _, sp := range l.refs.spans(coll) {
		last = max(last, sp.ts+TS(sp.n-1))
	}
	return last
}

// Retained notes that the drop of coll, committed, kept its records until
// the log is trimmed past until (RetainFor).
func (l *Log) Retained(coll uint64, until TS) {
	l.trimMu.Lock()
	defer l.trimMu.Unlock()
	if l.retained == nil {
		l.retained = map[uint64]TS{}
	}
	l.retained[coll] = until
}

// releaseRetained deletes the retained records the log no longer refers
// to: those waiting for a timestamp at or before trimmed. l.trimMu is
// held.
func (l *Log) releaseRetained(trimmed TS) error {
	var done []uint64
	b := l.db.NewBatch()
	for coll, until := range l.retained {
		if until <= trimmed {
			if err := storage.ReleaseRecords(b, coll); err != nil {
				b.Close()
				return fmt.Errorf("oplog: release records: %w", err)
			}
			done = append(done, coll)
		}
	}
	if len(done) == 0 {
		b.Close()
		return nil
	}
	if _, err := l.db.Commit(b); err != nil {
		return fmt.Errorf("oplog: release records: %w", err)
	}
	for _, coll := range done {
		delete(l.retained, coll)
		l.refs.forgetColl(coll)
	}
	return nil
}

// Materialize rewrites every reference run stored in db with its
// documents, for a database opened without its log (--oplog-size-mb 0):
// its records may then change with nobody to materialize the runs first,
// and a later open with the log would read them changed. Dropped
// collections' retained records go after.
func Materialize(db *storage.DB) error {
	l, err := Open(db, 1<<62)
	if err != nil {
		return err
	}
	l.refs.mu.RLock()
	colls := make([]uint64, 0, len(l.refs.byColl))
	for c := range l.refs.byColl {
		colls = append(colls, c)
	}
	l.refs.mu.RUnlock()
	for _, c := range colls {
		if err := l.UnrefCollection(c); err != nil {
			return err
		}
	}
	l.trimMu.Lock()
	defer l.trimMu.Unlock()
	return l.releaseRetained(^TS(0))
}

// unrefBatch bounds a batch of materialized runs.
const unrefBatch = 4 << 20

// materializeSpans materializes spans, committing a batch whenever it
// reaches unrefBatch bytes. It holds trimMu throughout: a run trimmed
// between its reading and the commit would otherwise come back, below
// the trimmed point.
func (l *Log) materializeSpans(coll uint64, spans []refSpan) error {
	l.trimMu.Lock()
	defer l.trimMu.Unlock()
	b := l.db.NewBatch()
	defer func() {
		if b != nil {
			b.Close()
		}
	}()
	for i, sp := range spans {
		if err := l.materialize(b, coll, sp); err != nil {
			return err
		}
		if b.Len() >= unrefBatch || i == len(spans)-1 {
			if b.Len() > 0 {
				committed := b
				b = nil
				if _, err := l.db.Commit(committed); err != nil {
					return fmt.Errorf("oplog: materialize: %w", err)
				}
			}
			if i < len(spans)-1 {
				b = l.db.NewBatch()
			}
		}
	}
	for _, sp := range spans {
		l.refs.forget(coll, sp)
	}
	return nil
}

// materialize writes into b the ordinary runs (or entries) holding the
// documents of the reference run sp, if it is one still; a run found
// materialized, or trimmed, is forgotten.
func (l *Log) materialize(b *storage.Batch, coll uint64, sp refSpan) error {
	cur, err := storage.NewOplogCursor(l.db.Reader(), uint64(sp.ts), uint64(sp.ts), false)
	if err != nil {
		return fmt.Errorf("oplog: materialize: %w", err)
	}
	defer cur.Close()
	k, v, ok := cur.Next()
	if err := cur.Err(); err != nil {
		return fmt.Errorf("oplog: materialize: %w", err)
	}
	if !ok || TS(k) != sp.ts || !isRefRun(v) {
		l.refs.forget(coll, sp) // committed as it is: nothing to do
		return nil
	}
	r, err := parseRefRun(v, sp.ts)
	if err != nil {
		return fmt.Errorf("oplog: materialize: run at %d: %w", sp.ts, err)
	}
	docs, err := r.loadDocs(cur, nil)
	if err != nil {
		return fmt.Errorf("oplog: materialize: run at %d: %w", sp.ts, err)
	}
	r.docs = docs
	offs, err := r.offsets(nil)
	if err != nil {
		return fmt.Errorf("oplog: materialize: run at %d: %w", sp.ts, err)
	}
	var ui *[16]byte
	if r.ui != nil {
		ui = (*[16]byte)(r.ui)
	}
	ents := make([]Entry, r.n)
	for i := range ents {
		ents[i] = Entry{Op: OpInsert, NS: string(r.ns), UI: ui, O: r.entry(offs, i)}
	}
	wall := time.UnixMilli(r.wallMs)
	var buf []byte
	for i := 0; i < len(ents); i++ {
		ts := sp.ts + TS(i)
		if k := runLength(ents[i:]); k > 0 {
			buf, _ = appendRun(buf[:0], ents[i:i+k], ts, wall)
			i += k - 1
		} else {
			buf, _ = ents[i].appendStored(buf[:0], ts, wall)
		}
		if err := storage.SetOplogEntry(b, uint64(ts), buf); err != nil {
			return fmt.Errorf("oplog: materialize: %w", err)
		}
	}
	return nil
}
