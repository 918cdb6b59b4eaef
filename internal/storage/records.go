package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Record store.
//
// A collection's documents live in its record store: records named by a
// RecordID, kept in RecordID order. This file is the only code that knows
// how a record is laid out in Pebble (one key per record, 0x02 |
// collectionID | recordID, both big-endian: see the package comment);
// everything else names records by collection and RecordID and reads them
// through GetRecord and a RecordCursor, writes them with SetRecord and
// DeleteRecord, and works on a whole collection with DeleteRecords,
// RecordIDs, SplitRecords and DB.RecordsDiskUsage. The layout may change
// (a clustered collection keyed by _id, say) without touching the query
// executor, as MongoDB's RecordStore lets FETCH call seekExact on a
// cursor without knowing how the storage engine finds the record.

// RecordID names a record of a collection. RecordIDs hands them out in
// insertion order; storage only relies on their order, not on their
// being dense.
type RecordID uint64

// recordKeyLen is the length of a record key.
const recordKeyLen = 17

// RecordOverhead is the number of bytes a record takes besides its
// document (its key), for size estimates.
const RecordOverhead = recordKeyLen

// appendRecordKey appends the key of record rid of collection collID.
func appendRecordKey(dst []byte, collID uint64, rid RecordID) []byte {
	dst = append(dst, kindRecord)
	dst = binary.BigEndian.AppendUint64(dst, collID)
	return binary.BigEndian.AppendUint64(dst, uint64(rid))
}

// recordIDFromKey extracts the RecordID from a record key.
func recordIDFromKey(k []byte) RecordID { return RecordID(binary.BigEndian.Uint64(k[9:17])) }

// recordRange returns the bounds [lo, hi) of every record of collID.
func recordRange(collID uint64) (lo, hi []byte) {
	lo = binary.BigEndian.AppendUint64([]byte{kindRecord}, collID)
	return lo, prefixEnd(lo)
}

// AppendRecordLockKey appends a byte string that names record rid of
// collID and no other key of the database, for conflict tables that
// track the keys a writer touched alongside index keys.
func AppendRecordLockKey(dst []byte, collID uint64, rid RecordID) []byte {
	return appendRecordKey(dst, collID, rid)
}

// SetRecord adds to b the write of doc as record rid of collID (inserted
// or replaced).
func SetRecord(b *Batch, collID uint64, rid RecordID, doc []byte) error {
	var kb [recordKeyLen]byte
	b.touch(collID)
	return b.set(appendRecordKey(kb[:0], collID, rid), doc)
}

// DeleteRecord adds to b the removal of record rid of collID.
func DeleteRecord(b *Batch, collID uint64, rid RecordID) error {
	var kb [recordKeyLen]byte
	b.touch(collID)
	return b.del(appendRecordKey(kb[:0], collID, rid))
}

// DeleteRecords adds to b the removal of every record of collID (a drop
// or a truncation).
func DeleteRecords(b *Batch, collID uint64) error {
	lo, hi := recordRange(collID)
	b.touch(collID)
	return b.deleteRange(lo, hi)
}

// RecordsDiskUsage estimates the bytes the records of collID take on
// disk (sstables only: see Pebble's EstimateDiskUsage).
func (db *DB) RecordsDiskUsage(collID uint64) (uint64, error) {
	lo, hi := recordRange(collID)
	return db.EstimateDiskUsage(lo, hi)
}

// GetRecord reads record rid of collID from r and appends it to dst.
func GetRecord(r Reader, collID uint64, rid RecordID, dst []byte) (doc []byte, found bool, err error) {
	var kb [recordKeyLen]byte
	return Get(r, appendRecordKey(kb[:0], collID, rid), dst)
}

// recordSpan returns the lowest and highest RecordIDs of collID, or 0, 0
// when the collection has no records.
func recordSpan(r Reader, collID uint64) (first, last RecordID, err error) {
	lo, hi := recordRange(collID)
	fk, lk, err := keySpan(r, lo, hi)
	if err != nil || fk == nil {
		return 0, 0, err
	}
	return recordIDFromKey(fk), recordIDFromKey(lk), nil
}

// keySpan returns copies of the first and last keys of r in [lo, hi), or
// nil, nil when there are none.
func keySpan(r Reader, lo, hi []byte) (first, last []byte, err error) {
	it, err := r.newIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, nil, fmt.Errorf("storage: iterator: %w", err)
	}
	defer it.Close()
	if !it.First() {
		return nil, nil, it.Error()
	}
	first = append([]byte(nil), it.Key()...)
	if !it.Last() {
		return nil, nil, it.Error()
	}
	return first, append([]byte(nil), it.Key()...), nil
}

// RecordCursor reads the records of one collection: in RecordID order
// (Next), by RecordID (SeekExact, FetchAscending), or both. Open it with
// NewRecordCursor, NewRecordRangeCursor or Open.
//
// It decides how to reach a record: a seek on an open iterator costs much
// less than a point Get (which opens one per call), and a record a little
// ahead of the cursor's position, the next of an ascending run, is reached
// by stepping, cheaper still.
type RecordCursor struct {
	it         Iterator
	collID     uint64
	reverse    bool
	started    bool
	positioned bool     // the iterator is on the entry Next returns next
	at         RecordID // the record the iterator is on, 0: unknown
	err        error
	kb         [recordKeyLen]byte
	cache      *recordCache // serves FetchAscending; nil: none (recordcache.go)
	fill       recordFill   // the documents FetchAscending read past the cache
	clustered  bool         // a clustered collection's records (clustered.go)
}

// NewRecordCursor opens a cursor over every record of collID in r,
// backward when reverse.
func NewRecordCursor(r Reader, collID uint64, reverse bool) (*RecordCursor, error) {
	c := &RecordCursor{}
	if err := c.Open(r, collID, reverse); err != nil {
		return nil, err
	}
	return c, nil
}

// NewRecordRangeCursor opens a forward cursor over the records of collID
// in r whose RecordID lies in [lo, hi); hi 0 means no upper bound.
func NewRecordRangeCursor(r Reader, collID uint64, lo, hi RecordID) (*RecordCursor, error) {
	lower := appendRecordKey(nil, collID, lo)
	var upper []byte
	if hi == 0 {
		_, upper = recordRange(collID)
	} else {
		upper = appendRecordKey(nil, collID, hi)
	}
	it, err := r.newIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("storage: record iterator: %w", err)
	}
	return &RecordCursor{it: it, collID: collID}, nil
}

// Open (re)initializes c, closed or zero, as a cursor over every record
// of collID in r, for callers that keep the cursor in their own struct.
func (c *RecordCursor) Open(r Reader, collID uint64, reverse bool) error {
	lo, hi := recordRange(collID)
	it, err := r.newIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return fmt.Errorf("storage: record iterator: %w", err)
	}
	fill := c.fill
	fill.reset()
	*c = RecordCursor{it: it, collID: collID, reverse: reverse, fill: fill}
	if p, ok := r.(*pebbleReader); ok && p.view != nil {
		c.cache = p.view.cacheFor(collID)
	}
	return nil
}

// IsOpen reports whether c is open (opened and not closed).
func (c *RecordCursor) IsOpen() bool { return c.it != nil }

// SeekAfter positions the cursor so that the next call to Next returns the
// first record after rid (before it, when reverse).
func (c *RecordCursor) SeekAfter(rid RecordID) {
	k := appendRecordKey(c.kb[:0], c.collID, rid)
	c.started, c.positioned, c.at = true, true, 0
	if c.reverse {
		c.it.SeekLT(k)
		return
	}
	if c.it.SeekGE(k) && bytes.Equal(c.it.Key(), k) {
		c.it.Next()
	}
}

// Next advances to the next record. The returned slice is valid only until
// the cursor moves again; ok is false at the end or on error (see Err).
func (c *RecordCursor) Next() (rid RecordID, doc []byte, ok bool) {
	valid := step(c.it, &c.started, &c.positioned, c.reverse)
	c.at = 0
	if !valid {
		c.err = c.it.Error()
		return 0, nil, false
	}
	v, err := c.it.ValueAndErr()
	if err != nil {
		c.err = err
		return 0, nil, false
	}
	if c.clustered {
		if len(v) < 8 {
			c.err = fmt.Errorf("storage: malformed clustered record")
			return 0, nil, false
		}
		return RecordID(binary.BigEndian.Uint64(v)), v[8:], true
	}
	return recordIDFromKey(c.it.Key()), v, true
}

// Key returns the cluster keystring of the record Next last returned (a
// clustered cursor's); valid only until the cursor moves again.
func (c *RecordCursor) Key() []byte { return c.it.Key()[clusteredKeyPrefixLen:] }

// maxNextSteps is the RecordID distance up to which SeekExact steps the
// iterator forward with Next rather than seeking.
const maxNextSteps = 32

// SeekExact reads record rid; found is false when it does not exist.
// The slice is valid only until the cursor moves again. After it, Next
// returns the record after rid (before it, when reverse).
func (c *RecordCursor) SeekExact(rid RecordID) (doc []byte, found bool, err error) {
	k := appendRecordKey(c.kb[:0], c.collID, rid)
	found, err = c.position(rid, k)
	c.started = true
	if err != nil {
		c.positioned, c.at = false, 0
		return nil, false, err
	}
	if !found {
		// Next continues from the first record past rid.
		if c.reverse {
			c.it.SeekLT(k)
			c.at = 0
		}
		c.positioned = true
		return nil, false, nil
	}
	c.positioned = false
	v, err := c.it.ValueAndErr()
	if err != nil {
		return nil, false, fmt.Errorf("storage: record value: %w", err)
	}
	return v, true, nil
}

// position moves the iterator to k (record rid) and reports whether that
// record exists; c.at is where the iterator stands (0: not on a record).
// The iterator's bounds keep it within this collection's records, so
// record ids compare as their keys do.
func (c *RecordCursor) position(rid RecordID, k []byte) (bool, error) {
	if c.at > 0 {
		if c.at == rid {
			return true, nil
		}
		if c.at < rid && rid-c.at <= maxNextSteps {
			for steps := 0; steps <= maxNextSteps; steps++ {
				if !c.it.Next() {
					c.at = 0
					return false, c.it.Error()
				}
				c.at = recordIDFromKey(c.it.Key())
				if c.at >= rid {
					return c.at == rid, nil
				}
			}
		}
	}
	if !c.it.SeekGE(k) {
		c.at = 0
		return false, c.it.Error()
	}
	c.at = recordIDFromKey(c.it.Key())
	return c.at == rid, nil
}

// FetchAscending reads n records in ascending RecordID order: rid(i)
// names the i-th, and must not decrease with i (repeats are allowed). It
// calls fn(i, doc, found) for each, found false when the record does not
// exist; doc is valid only during the call. It stops at the first read
// that fails and returns its index with the error, or n and nil. (The
// caller keeps the ids where it likes: a batched FETCH sorts indexes into
// its buffered child outcomes.) Records are served from the record cache
// when the cursor's snapshot may use it (recordcache.go), and the ones
// read from Pebble are added to it; where Next continues after it is
// unspecified.
func (c *RecordCursor) FetchAscending(n int, rid func(i int) RecordID, fn func(i int, doc []byte, found bool)) (int, error) {
	if c.cache != nil {
		return c.fetchCached(n, rid, fn)
	}
	for i := 0; i < n; i++ {
		doc, found, err := c.SeekExact(rid(i))
		if err != nil {
			return i, err
		}
		fn(i, doc, found)
	}
	return n, nil
}

// fetchCached is FetchAscending through the record cache.
func (c *RecordCursor) fetchCached(n int, rid func(i int) RecordID, fn func(i int, doc []byte, found bool)) (int, error) {
	rc := c.cache
	c.fill.reset()
	rc.mu.RLock()
	var ref recordBlockRef
	for i := 0; i < n; i++ {
		id := rid(i)
		if doc, ok := rc.get(id, &ref); ok {
			fn(i, doc, true)
			continue
		}
		rc.mu.RUnlock()
		doc, found, err := c.SeekExact(id)
		if err != nil {
			rc.put(&c.fill)
			return i, err
		}
		if found {
			c.fill.add(id, doc)
		}
		fn(i, doc, found)
		rc.mu.RLock()
		ref = recordBlockRef{} // the cache may have grown meanwhile
	}
	rc.mu.RUnlock()
	rc.put(&c.fill)
	return n, nil
}

// Err returns the error that ended iteration, if any.
func (c *RecordCursor) Err() error { return c.err }

// Close releases the cursor.
func (c *RecordCursor) Close() error {
	if c.it == nil {
		return nil
	}
	err := c.it.Close()
	c.it = nil
	return err
}
