package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Clustered record store.
//
// A clustered collection (create's clusteredIndex) keeps its records in
// the order of their cluster key, the _id's keystring (the key its _id
// index entry would have), with no separate _id index:
//
//	0x02 | collectionID BE | cluster keystring -> recordID BE | document
//
// An _id equality or range is a range of this keyspace. The record still
// has a RecordID, allocated as for any collection and kept in the value's
// first 8 bytes: it names the record within a query (a multikey scan's
// duplicates, a write's lock keys) and ends its secondary index entries'
// keys as it does for any collection, so index scans and the conflict
// tables need no special case. What differs is how a record is reached:
// by its cluster key, which the secondary index entries of a clustered
// collection carry in their value (SetClusteredIndexEntry), not by its
// RecordID. RecordCursor.Next decodes both layouts; SeekKey and
// GetClusteredRecord read one record by cluster key.
//
// A collection is either clustered or not for its whole life (the
// engine's catalog says which), so both layouts share the record kind
// byte and a collection's record range.

// appendClusteredKey appends the key of the record of collID whose
// cluster keystring is ck.
func appendClusteredKey(dst []byte, collID uint64, ck []byte) []byte {
	dst = append(dst, kindRecord)
	dst = binary.BigEndian.AppendUint64(dst, collID)
	return append(dst, ck...)
}

// clusteredKeyPrefixLen is the length of a clustered record key before
// its cluster keystring.
const clusteredKeyPrefixLen = 9

// SetClusteredRecord adds to b the write of doc as the record of
// clustered collection collID with cluster keystring ck and RecordID rid
// (inserted or replaced).
func SetClusteredRecord(b *Batch, collID uint64, ck []byte, rid RecordID, doc []byte) error {
	b.touch(collID)
	k := appendClusteredKey(b.scratch(), collID, ck)
	b.kb = k
	v := make([]byte, 8, 8+len(doc))
	binary.BigEndian.PutUint64(v, uint64(rid))
	return b.set(k, append(v, doc...))
}

// DeleteClusteredRecord adds to b the removal of the record of clustered
// collection collID with cluster keystring ck.
func DeleteClusteredRecord(b *Batch, collID uint64, ck []byte) error {
	b.touch(collID)
	k := appendClusteredKey(b.scratch(), collID, ck)
	b.kb = k
	return b.del(k)
}

// GetClusteredRecord reads the record of clustered collection collID with
// cluster keystring ck from r, appending its document to dst.
func GetClusteredRecord(r Reader, collID uint64, ck []byte, dst []byte) (doc []byte, rid RecordID, found bool, err error) {
	v, closer, err := r.get(appendClusteredKey(nil, collID, ck))
	if errors.Is(err, pebble.ErrNotFound) {
		return dst, 0, false, nil
	}
	if err != nil {
		return dst, 0, false, fmt.Errorf("storage: get: %w", err)
	}
	defer closer.Close()
	if len(v) < 8 {
		return dst, 0, false, fmt.Errorf("storage: malformed clustered record")
	}
	return append(dst, v[8:]...), RecordID(binary.BigEndian.Uint64(v)), true, nil
}

// A clustered collection's RecordIDs are not in its key order, so the
// highest one cannot be read from the last record at open. Instead each
// batch that takes ids notes the blocks of ClusteredIDBlock ids they fall
// in, one key per block (0x01 | 0x02 | collectionID BE | block BE),
// written with the records: at open the last block noted bounds every id
// in use. Concurrent batches (a transaction's, a statement's) may note the
// same block; a key per block, rather than one high-water value, keeps
// the highest whatever order they commit in.
const catalogClusteredIDs byte = 0x02

// ClusteredIDBlock is the number of RecordIDs one block key covers.
const ClusteredIDBlock = 1 << 12

// clusteredIDKey returns the key noting block blk of collID's ids.
func clusteredIDKey(collID, blk uint64) []byte {
	k := make([]byte, 0, 18)
	k = append(k, kindCatalog, catalogClusteredIDs)
	k = binary.BigEndian.AppendUint64(k, collID)
	return binary.BigEndian.AppendUint64(k, blk)
}

// NoteClusteredIDs adds to b the note that the block of rid is in use by
// clustered collection collID; the caller notes each block once per
// batch, in the batch of the records that take its ids.
func NoteClusteredIDs(b *Batch, collID uint64, rid RecordID) error {
	return b.set(clusteredIDKey(collID, uint64(rid)/ClusteredIDBlock), nil)
}

// DeleteClusteredIDs adds to b the removal of collID's block notes (a
// drop).
func DeleteClusteredIDs(b *Batch, collID uint64) error {
	lo := clusteredIDKey(collID, 0)
	return b.deleteRange(lo, prefixEnd(lo[:10]))
}

// ClusteredRecordIDs returns the RecordID allocator of clustered
// collection collID, past every id of the last block its batches noted.
func ClusteredRecordIDs(r Reader, collID uint64) (RecordIDs, error) {
	lo := clusteredIDKey(collID, 0)
	first, last, err := keySpan(r, lo, prefixEnd(lo[:10]))
	if err != nil || first == nil {
		return RecordIDs{}, err
	}
	blk := binary.BigEndian.Uint64(last[10:])
	return RecordIDs{last: RecordID((blk+1)*ClusteredIDBlock - 1)}, nil
}

// OpenClustered (re)initializes c, closed or zero, as a cursor over the
// records of clustered collection collID in r whose cluster keystring
// lies in [lo, hi) (nil: unbounded on that side), backward when reverse.
// Its Next returns each record's RecordID and document; SeekKey reads one
// record by cluster key. SeekExact, SeekAfter and FetchAscending, which
// name records by RecordID, do not apply.
func (c *RecordCursor) OpenClustered(r Reader, collID uint64, lo, hi []byte, reverse bool) error {
	lower, upper := recordRange(collID)
	if lo != nil {
		lower = appendClusteredKey(nil, collID, lo)
	}
	if hi != nil {
		upper = appendClusteredKey(nil, collID, hi)
	}
	it, err := r.newIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return fmt.Errorf("storage: record iterator: %w", err)
	}
	fill := c.fill
	fill.reset()
	*c = RecordCursor{it: it, collID: collID, reverse: reverse, fill: fill, clustered: true}
	return nil
}

// SeekKey reads the record of a clustered cursor's collection whose
// cluster keystring is ck; found is false when there is none. The slice
// is valid only until the cursor moves again.
func (c *RecordCursor) SeekKey(ck []byte) (doc []byte, rid RecordID, found bool, err error) {
	k := appendClusteredKey(c.kb[:0], c.collID, ck)
	c.started, c.positioned, c.at = true, false, 0
	if !c.it.SeekGE(k) {
		return nil, 0, false, c.it.Error()
	}
	if string(c.it.Key()) != string(k) {
		return nil, 0, false, nil
	}
	v, err := c.it.ValueAndErr()
	if err != nil {
		return nil, 0, false, fmt.Errorf("storage: record value: %w", err)
	}
	if len(v) < 8 {
		return nil, 0, false, fmt.Errorf("storage: malformed clustered record")
	}
	return v[8:], RecordID(binary.BigEndian.Uint64(v)), true, nil
}

// ClusteredRecords is the record store of a clustered collection, or the
// part of it whose cluster keystrings lie in [Lo, Hi) (nil: unbounded).
type ClusteredRecords struct {
	CollID uint64
	Lo, Hi []byte
}

// OpenRecords implements RecordSource.
func (s ClusteredRecords) OpenRecords(r Reader, reverse bool) (RecordIterator, error) {
	c := &RecordCursor{}
	if err := c.OpenClustered(r, s.CollID, s.Lo, s.Hi, reverse); err != nil {
		return nil, err
	}
	return c, nil
}

// SetClusteredIndexEntry adds to b the entry (indexID, ks, rid) of an
// index of a clustered collection: its value holds the record's cluster
// keystring ck (how a FETCH reaches the record) before the type bits tb.
// Read it with an IndexCursor opened with SetClustered.
func SetClusteredIndexEntry(b *Batch, indexID uint64, ks []byte, rid RecordID, tb, ck []byte) error {
	b.kb = appendIndexKey(b.scratch(), indexID, ks, uint64(rid))
	return b.setIndexEntry(indexID, b.kb, appendClusteredIndexValue(nil, tb, ck))
}

// appendClusteredIndexValue appends the value of a clustered collection's
// index entry: uvarint(len(ck)) | ck | tb.
func appendClusteredIndexValue(dst, tb, ck []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ck)))
	dst = append(dst, ck...)
	return append(dst, tb...)
}

// SplitClusteredIndexValue splits the value of a clustered collection's
// index entry into the record's cluster keystring and the type bits.
func SplitClusteredIndexValue(v []byte) (ck, tb []byte, err error) {
	n, w := binary.Uvarint(v)
	if w <= 0 || uint64(len(v)-w) < n {
		return nil, nil, fmt.Errorf("storage: malformed clustered index entry")
	}
	return v[w : w+int(n)], v[w+int(n):], nil
}

// ClusteredIndexLoadValue returns the value an IndexLoad adds for an
// entry of a clustered collection's index (see SetClusteredIndexEntry).
func ClusteredIndexLoadValue(dst, tb, ck []byte) []byte {
	return appendClusteredIndexValue(dst[:0], tb, ck)
}

// ClusteredRecordID returns the RecordID of the record of clustered
// collection collID with cluster keystring ck in r, or found false.
func ClusteredRecordID(r Reader, collID uint64, ck []byte) (rid RecordID, found bool, err error) {
	v, closer, err := r.get(appendClusteredKey(nil, collID, ck))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("storage: get: %w", err)
	}
	defer closer.Close()
	if len(v) < 8 {
		return 0, false, fmt.Errorf("storage: malformed clustered record")
	}
	return RecordID(binary.BigEndian.Uint64(v)), true, nil
}
