package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// IndexCursor iterates the entries of one index between two keystring
// bounds.
type IndexCursor struct {
	it      Iterator
	indexID uint64
	reverse bool
	started bool
	sought  bool // SeekGE positioned the iterator: Next returns that entry
	err     error
	kbuf    []byte
	// clustered: the index is a clustered collection's, whose entries
	// carry the record's cluster keystring (ck) before the type bits.
	clustered bool
	ck        []byte
}

// SetClustered tells c that its index belongs to a clustered collection:
// Next then returns the type bits alone and RecordKey the cluster
// keystring of the entry's record (SetClusteredIndexEntry).
func (c *IndexCursor) SetClustered() { c.clustered = true }

// RecordKey returns the cluster keystring of the record of the entry
// Next last returned (a clustered collection's index); valid only until
// the next call to Next.
func (c *IndexCursor) RecordKey() []byte { return c.ck }

// NewIndexCursor opens a cursor over the entries of indexID whose keystring
// lies in [lo, hi). A nil lo means the start of the index, a nil hi its end.
// Bounds compare against the whole keystring; to include every entry whose
// keystring starts with p, pass hi = PrefixEnd(p).
func NewIndexCursor(r Reader, indexID uint64, lo, hi []byte, reverse bool) (*IndexCursor, error) {
	lower := appendIndexPrefix(nil, indexID)
	lower = append(lower, lo...)
	var upper []byte
	if hi == nil {
		_, upper = indexRange(indexID)
	} else {
		upper = appendIndexPrefix(nil, indexID)
		upper = append(upper, hi...)
	}
	it, err := r.newIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("storage: index iterator: %w", err)
	}
	return &IndexCursor{it: it, indexID: indexID, reverse: reverse}, nil
}

// SeekGE moves a forward cursor so that the next call to Next returns the
// first entry at or after key (keystring followed by the big-endian
// record id, as EmptyRanges keys are), within the cursor's bounds.
// Seeking forward from where the cursor stands costs little: Pebble
// steps instead of searching when the target is near.
func (c *IndexCursor) SeekGE(key []byte) {
	c.kbuf = append(appendIndexPrefix(c.kbuf[:0], c.indexID), key...)
	c.started, c.sought = true, true
	c.it.SeekGE(c.kbuf)
}

// Next returns the next entry: its keystring, recordID and value (typebits).
// Slices are valid only until the next call; ok is false at the end or on
// error (see Err).
func (c *IndexCursor) Next() (ks []byte, recID uint64, value []byte, ok bool) {
	valid := step(c.it, &c.started, &c.sought, c.reverse)
	if !valid {
		c.err = c.it.Error()
		return nil, 0, nil, false
	}
	k := c.it.Key()
	if len(k) < indexPrefixLen+8 {
		c.err = fmt.Errorf("storage: malformed index key %x", k)
		return nil, 0, nil, false
	}
	v, err := c.it.ValueAndErr()
	if err != nil {
		c.err = err
		return nil, 0, nil, false
	}
	n := len(k) - 8
	if c.clustered {
		if c.ck, v, err = SplitClusteredIndexValue(v); err != nil {
			c.err = err
			return nil, 0, nil, false
		}
	}
	return k[indexPrefixLen:n], binary.BigEndian.Uint64(k[n:]), v, true
}

// Err returns the error that ended iteration, if any.
func (c *IndexCursor) Err() error { return c.err }

// Close releases the cursor.
func (c *IndexCursor) Close() error {
	if c.it == nil {
		return nil
	}
	err := c.it.Close()
	c.it = nil
	return err
}

// lastIndexKeystring returns the keystring of the last entry of indexID
// as it reads (copied into dst), or ok false when the index is empty. It
// rebounds it to the index.
func lastIndexKeystring(it Iterator, indexID uint64, dst []byte) (ks []byte, ok bool, err error) {
	lo, hi := indexRange(indexID)
	it.SetBounds(lo, hi)
	if !it.Last() {
		return dst, false, it.Error()
	}
	k := it.Key()
	if len(k) < indexPrefixLen+8 {
		return dst, false, fmt.Errorf("storage: malformed index key %x", k)
	}
	return append(dst[:0], k[indexPrefixLen:len(k)-8]...), true, nil
}

// step moves a cursor's iterator one entry in its direction and reports
// whether it is on an entry: to the first (last, when reverse) entry the
// first time, nowhere after a seek that left it on the entry to return
// (positioned), else to the next (previous) one. Record and index
// cursors share it.
func step(it Iterator, started, positioned *bool, reverse bool) bool {
	switch {
	case *positioned:
		*positioned = false
		return it.Valid()
	case !*started:
		*started = true
		if reverse {
			return it.Last()
		}
		return it.First()
	case reverse:
		return it.Prev()
	default:
		return it.Next()
	}
}

// IndexProbe answers a write's unique checks on any index of a reader:
// the last keystring of an index, and the records of one keystring. It
// reuses one iterator across calls (keep the probe in the caller's struct:
// Open, use, Close). It is not safe for concurrent use.
//
// A seek is bounded by the keys of the keystring sought: past them it
// stops at the bound instead of stepping over whatever follows, which in
// a queue's claim index, or an index whose entries were deleted, is a run
// of deleted entries not yet compacted away (TestIndexProbeStopsAtItsPrefix).
//
// With KeepGaps, over a view that does not change (the DB's or a
// snapshot's: a Pebble iterator reads as of its creation), a seek is
// bounded by the index instead and the probe keeps the keystring of the
// entry after the one it looked for: a later keystring between the two
// (and not an extension of the first) has no entry in that view, and
// Find answers it without a seek. A bulk insert's keys that rise inside
// a gap of the index, as ObjectIds do after their counter wraps within
// one second, are then sought once per gap rather than once each. A seek
// that had to step over many deleted entries to find the next one turns
// the gaps off for the rest of the probe's use.
type IndexProbe struct {
	it  Iterator
	buf []byte

	fixed bool // the view does not change (gaps may be kept)
	gaps  bool // KeepGaps, over a fixed view
	gap   probeGap
	seeks int // Finds that sought (tests)
}

// maxGapSteps bounds the internal steps (deleted entries stepped over)
// of a seek that looks for the next entry; past it the probe keeps no
// more gaps.
const maxGapSteps = 64

// KeepGaps turns the gaps on (see IndexProbe) for the probe as opened.
func (p *IndexProbe) KeepGaps() { p.gaps = p.fixed }

// probeGap is a range of keystrings with no entry in a probe's view: of
// index id, above lo and below hi (above lo at all when end), other than
// the extensions of lo.
type probeGap struct {
	ok     bool
	id     uint64
	lo, hi []byte
	end    bool
}

// holds reports whether ks of index id lies in the gap.
func (g *probeGap) holds(id uint64, ks []byte) bool {
	return g.ok && g.id == id && bytes.Compare(ks, g.lo) > 0 &&
		(g.end || bytes.Compare(ks, g.hi) < 0) && !bytes.HasPrefix(ks, g.lo)
}

// Open (re)initializes p, closed or zero, as a probe of r.
func (p *IndexProbe) Open(r Reader) error {
	it, err := r.newIter(nil)
	if err != nil {
		return fmt.Errorf("storage: index iterator: %w", err)
	}
	p.it = it
	p.gap.ok, p.gaps = false, false
	p.fixed = false
	if pr, ok := r.(pebbleReader); ok {
		switch pr.r.(type) {
		case *pebble.DB, *pebble.Snapshot:
			p.fixed = true
		}
	}
	return nil
}

// IsOpen reports whether p is open.
func (p *IndexProbe) IsOpen() bool { return p.it != nil }

// LastKeystring returns the keystring of the last entry of indexID
// (appended to dst[:0]), or ok false when the index is empty.
func (p *IndexProbe) LastKeystring(indexID uint64, dst []byte) (ks []byte, ok bool, err error) {
	return lastIndexKeystring(p.it, indexID, dst)
}

// Find calls fn with the RecordID of each entry of indexID whose
// keystring equals ks exactly, until fn returns false.
func (p *IndexProbe) Find(indexID uint64, ks []byte, fn func(rid RecordID) bool) error {
	if p.gaps && p.gap.holds(indexID, ks) {
		return nil
	}
	p.gap.ok = false
	p.seeks++
	buf := appendIndexPrefix(p.buf[:0], indexID)
	buf = append(buf, ks...)
	plen := len(buf)
	if p.gaps {
		buf = append(buf, prefixEnd(buf[:indexPrefixLen])...)
		p.it.SetBounds(buf[:indexPrefixLen], buf[plen:])
	} else {
		buf = append(buf, prefixEnd(buf)...)
		p.it.SetBounds(buf[:plen], buf[plen:]) // never empty: the prefix starts 0x03
	}
	p.buf = buf
	var steps int
	if p.gaps {
		steps = p.internalSteps() // read only where the guard needs it
	}
	prefix := buf[:plen]
	valid := p.it.SeekGE(prefix)
	for ; valid; valid = p.it.Next() {
		k := p.it.Key()
		if !bytes.HasPrefix(k, prefix) {
			break
		}
		if len(k) != plen+8 {
			continue // a longer keystring that merely starts with ks
		}
		if !fn(RecordID(binary.BigEndian.Uint64(k[plen:]))) {
			return p.it.Error() // stopped early: the next entry is unknown
		}
	}
	if err := p.it.Error(); err != nil || !p.gaps {
		return err
	}
	if p.internalSteps()-steps > maxGapSteps {
		p.gaps = false // deleted entries lie past the keys sought
		return nil
	}
	g := &p.gap
	g.id, g.lo, g.end = indexID, append(g.lo[:0], ks...), !valid
	if valid {
		k := p.it.Key()
		if len(k) < indexPrefixLen+8 {
			return fmt.Errorf("storage: malformed index key %x", k)
		}
		g.hi = append(g.hi[:0], k[indexPrefixLen:len(k)-8]...)
	}
	g.ok = true
	return nil
}

// internalSteps is the internal steps the probe's iterator has taken.
func (p *IndexProbe) internalSteps() int {
	if pi, ok := p.it.(*pebble.Iterator); ok {
		return pi.Stats().ForwardStepCount[pebble.InternalIterCall]
	}
	return 0
}

// Close releases the probe's iterator.
func (p *IndexProbe) Close() error {
	if p.it == nil {
		return nil
	}
	err := p.it.Close()
	p.it, p.gap.ok = nil, false
	return err
}
