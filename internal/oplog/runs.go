package oplog

import (
	"encoding/binary"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode/internal/storage"
)

// A run: the inserts of one batch into one collection, stored as one
// value at the first one's timestamp. The entries keep their own
// timestamps (consecutive: first, first+1, ...) and readers see one
// mongod entry per document, as before; what is stored once instead of
// once per document is the key, the namespace, the UUID and the wall
// time. A bulk insert's oplog was a third of the keys it wrote and
// nearly half of its bytes (docs/benchmarks.md, "Issue 33: the inserts
// of a batch as one oplog run").
//
//	magic [4]byte{0, 0, 0, 0}
//	version byte (2)
//	flags byte (flagUI)
//	wall: zigzag varint, milliseconds after the first timestamp's second
//	ns: uvarint length, bytes
//	ui: 16 bytes when flagUI
//	n: uvarint, the number of entries (at least 2)
//	o: n BSON documents, back to back
const storedRun = 2

// Runs are bounded so that a reader never parses much for one entry,
// and so that a run is never a large value in a data block beside other
// keys: Pebble's disk usage estimate of a key range (compact's
// bytesFreed, collStats) counts the blocks it touches whole.
const (
	maxRunEntries = 1 << 14
	maxRunBytes   = 32 << 10
)

// runnable reports whether e may join a run: a plain insert without
// images.
func (e *Entry) runnable() bool {
	return e.Txn == nil && e.Op == OpInsert && e.O2 == nil && len(e.Images) == 0
}

// runLength is how many entries from ents[0] form a run: plain inserts
// into the namespace and collection of the first, within the bounds. It
// is 0 when fewer than two do.
func runLength(ents []Entry) int {
	if len(ents) < 2 || !ents[0].runnable() {
		return 0
	}
	bytes := len(ents[0].O)
	n := 1
	for n < len(ents) && n < maxRunEntries {
		e := &ents[n]
		if !e.runnable() || e.NS != ents[0].NS || !sameUI(e.UI, ents[0].UI) || bytes+len(e.O) > maxRunBytes {
			break
		}
		bytes += len(e.O)
		n++
	}
	if n < 2 {
		return 0
	}
	return n
}

func sameUI(a, b *[16]byte) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// appendRun appends the stored run of ents, whose first entry is at
// first; n is the total length of the BSON documents readers will see.
func appendRun(dst []byte, ents []Entry, first TS, wall time.Time) (out []byte, n int64) {
	flags := byte(0)
	if ents[0].UI != nil {
		flags |= flagUI
	}
	dst = append(dst, 0, 0, 0, 0, storedRun, flags)
	dst = binary.AppendVarint(dst, wall.UnixMilli()-int64(first.Sec())*1000)
	dst = binary.AppendUvarint(dst, uint64(len(ents[0].NS)))
	dst = append(dst, ents[0].NS...)
	if ents[0].UI != nil {
		dst = append(dst, ents[0].UI[:]...)
	}
	dst = binary.AppendUvarint(dst, uint64(len(ents)))
	for i := range ents {
		dst = append(dst, ents[i].O...)
		n += fullLen(len(ents[i].NS), len(ents[i].O), 0, ents[i].UI != nil, false)
	}
	return dst, n
}

// isRun reports whether v is a stored run.
func isRun(v []byte) bool { return isCompact(v) && v[4] == storedRun }

// run is a parsed stored run.
type run struct {
	first  TS
	n      int
	wallMs int64
	ns, ui []byte
	docs   []byte // the n documents, back to back
}

func parseRun(v []byte, first TS) (r run, err error) {
	if len(v) < 6 || v[4] != storedRun {
		return r, errBadStored
	}
	r.first = first
	var rest []byte
	if r.wallMs, r.ns, r.ui, rest, err = parseHeader(v[6:], v[5], first); err != nil {
		return r, err
	}
	n, k := binary.Uvarint(rest)
	if k <= 0 || n < 2 || n > maxRunEntries {
		return r, errBadStored
	}
	r.n, r.docs = int(n), rest[k:]
	return r, nil
}

// last is the timestamp of the run's last entry.
func (r *run) last() TS { return r.first + TS(r.n-1) }

// offsets returns where each of the run's documents starts in r.docs.
func (r *run) offsets(dst []int) ([]int, error) {
	dst = dst[:0]
	rest := r.docs
	for range r.n {
		l, _, ok := bsoncore.ReadLength(rest)
		if !ok || l < 5 || int(l) > len(rest) {
			return nil, errBadStored
		}
		dst = append(dst, len(r.docs)-len(rest))
		rest = rest[l:]
	}
	if len(rest) != 0 {
		return nil, errBadStored
	}
	return dst, nil
}

// entry returns the document of the run's entry i, given the
// documents' offsets.
func (r *run) entry(offs []int, i int) bsoncore.Document {
	end := len(r.docs)
	if i+1 < len(offs) {
		end = offs[i+1]
	}
	return r.docs[offs[i]:end]
}

// entryDoc rebuilds entry i (document o) of the run as mongod's BSON
// document, into a new slice.
func (r *run) entryDoc(i int, o bsoncore.Document) bsoncore.Document {
	p := compactParts{op: OpInsert[0], wallMs: r.wallMs, ns: r.ns, ui: r.ui, o: o}
	return p.appendDoc(make([]byte, 0, len(o)+len(r.ns)+96), r.first+TS(i))
}

// storedSpan returns the number of entries the value v stored at ts
// holds, the timestamp of its last, and the total length of their BSON
// documents.
func storedSpan(v []byte, ts TS) (n int64, last TS, bytes int64) {
	if !isRun(v) {
		return 1, ts, storedLen(v)
	}
	r, err := parseRun(v, ts)
	if err != nil {
		return 1, ts, int64(len(v))
	}
	offs, err := r.offsets(nil)
	if err != nil {
		return int64(r.n), r.last(), int64(len(v))
	}
	for i := range offs {
		bytes += fullLen(len(r.ns), len(r.entry(offs, i)), 0, r.ui != nil, false)
	}
	return int64(r.n), r.last(), bytes
}

// cursor reads the log's entries in [lo, hi], one mongod document each,
// in either order, expanding stored runs (a run that begins before lo
// or ends after hi is read in part).
type cursor struct {
	cur     *storage.OplogCursor
	lo, hi  TS
	reverse bool
	// The run being read: r, its documents' offsets, and the next
	// entry's index in it (in reading order: backwards when reverse).
	inRun bool
	r     run
	offs  []int
	i     int
	err   error
}

// openCursor opens a cursor over the entries of r in [lo, hi].
func openCursor(rd storage.Reader, lo, hi TS, reverse bool) (*cursor, error) {
	start := lo
	if lo > 0 && hi >= lo {
		// A run stored before lo may hold entries from lo on: the
		// newest stored value below lo says.
		p, err := storage.NewOplogCursor(rd, uint64(lo-min(lo, maxRunEntries)), uint64(lo-1), true)
		if err != nil {
			return nil, err
		}
		if k, v, ok := p.Next(); ok && isRun(v) {
			if r, err := parseRun(v, TS(k)); err == nil && r.last() >= lo {
				start = TS(k)
			}
		}
		err = p.Err()
		p.Close()
		if err != nil {
			return nil, err
		}
	}
	cur, err := storage.NewOplogCursor(rd, uint64(start), uint64(hi), reverse)
	if err != nil {
		return nil, err
	}
	return &cursor{cur: cur, lo: lo, hi: hi, reverse: reverse}, nil
}

// Next returns the next entry, rebuilt into a new document (the reader's
// to keep); ok is false at the end or on error (see Err).
func (c *cursor) Next() (ts TS, doc bsoncore.Document, ok bool) {
	for {
		if c.inRun {
			if ts, doc, ok := c.nextInRun(); ok {
				return ts, doc, true
			}
			c.inRun = false
			if c.err != nil {
				return 0, nil, false
			}
		}
		rid, v, ok := c.cur.Next()
		if !ok {
			return 0, nil, false
		}
		ts := TS(rid)
		if !isRun(v) {
			if ts < c.lo || ts > c.hi {
				continue
			}
			doc, err := expand(nil, v, ts) // not reused: a reader may keep it
			if err != nil {
				c.err = fmt.Errorf("oplog: entry %d: %w", ts, err)
				return 0, nil, false
			}
			return ts, doc, true
		}
		// The run's bytes stay valid until c.cur moves, which it does
		// only once the run is read.
		r, err := parseRun(v, ts)
		if err == nil {
			c.offs, err = r.offsets(c.offs)
		}
		if err != nil {
			c.err = fmt.Errorf("oplog: run at %d: %w", ts, err)
			return 0, nil, false
		}
		c.r, c.inRun, c.i = r, true, 0
		if c.reverse {
			c.i = r.n - 1
		}
	}
}

// nextInRun returns the run's next entry within [lo, hi].
func (c *cursor) nextInRun() (TS, bsoncore.Document, bool) {
	for c.i >= 0 && c.i < c.r.n {
		i := c.i
		if c.reverse {
			c.i--
		} else {
			c.i++
		}
		ts := c.r.first + TS(i)
		if ts < c.lo || ts > c.hi {
			continue
		}
		return ts, c.r.entryDoc(i, c.r.entry(c.offs, i)), true
	}
	return 0, nil, false
}

// Err returns the error that ended Next, if any.
func (c *cursor) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.cur.Err()
}

// Close releases the cursor.
func (c *cursor) Close() error { return c.cur.Close() }
