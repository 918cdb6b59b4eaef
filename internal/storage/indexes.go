package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Index store.
//
// An index's entries live in its index store: one key per entry, 0x03 |
// indexID | keystring | recordID (big-endian), whose value is the
// keystring's type bits. This file and scan.go are the only code that
// knows that layout; the engine names an entry by (index id, keystring,
// RecordID) and writes it with SetIndexEntry and DeleteIndexEntry.

// AppendIndexEntryLockKey appends a byte string that names the entry
// (indexID, ks, rid) and no other key of the database, for conflict
// tables and the sets of entries a write batch touched. Callers do not
// take it apart.
func AppendIndexEntryLockKey(dst []byte, indexID uint64, ks []byte, rid RecordID) []byte {
	return appendIndexKey(dst, indexID, ks, uint64(rid))
}

// AppendIndexKeyLockKey appends a byte string that names keystring ks of
// indexID, whatever the record (a unique index's slot for ks), for
// conflict tables alongside AppendIndexEntryLockKey's and
// AppendRecordLockKey's.
func AppendIndexKeyLockKey(dst []byte, indexID uint64, ks []byte) []byte {
	return append(appendIndexPrefix(dst, indexID), ks...)
}

// SetIndexEntry adds to b the entry (indexID, ks, rid) with value tb (the
// keystring's type bits).
func SetIndexEntry(b *Batch, indexID uint64, ks []byte, rid RecordID, tb []byte) error {
	b.kb = appendIndexKey(b.scratch(), indexID, ks, uint64(rid))
	return b.setIndexEntry(indexID, b.kb, tb)
}

// DeleteIndexEntry adds to b the removal of the entry (indexID, ks, rid).
// Index entries are set once and removed once (see the package comment),
// so the removal is a single delete.
func DeleteIndexEntry(b *Batch, indexID uint64, ks []byte, rid RecordID) error {
	if err := b.unstage(); err != nil {
		return err
	}
	b.kb = appendIndexKey(b.scratch(), indexID, ks, uint64(rid))
	return b.indexBatch(indexID).SingleDelete(b.kb, nil)
}

// DeleteIndexEntries adds to b the removal of every entry of indexID (a
// drop, a failed build's cleanup).
func DeleteIndexEntries(b *Batch, indexID uint64) error {
	lo, hi := indexRange(indexID)
	return b.deleteRange(lo, hi)
}

// IndexEntryOverhead is the number of bytes an index entry's key takes
// besides its keystring, for size accounting: an entry of keystring ks
// and type bits tb takes IndexEntryOverhead + len(ks) + len(tb).
const IndexEntryOverhead = indexPrefixLen + 8

// HasIndexEntry reports whether r holds the entry (indexID, ks, rid).
func HasIndexEntry(r Reader, indexID uint64, ks []byte, rid RecordID) (bool, error) {
	v, closer, err := r.get(appendIndexKey(nil, indexID, ks, uint64(rid)))
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage: get: %w", err)
	}
	_ = v
	closer.Close()
	return true, nil
}

// IndexEntriesSize returns the bytes (keys and values) of every entry of
// indexID in r, counted one by one.
func IndexEntriesSize(r Reader, indexID uint64) (int64, error) {
	lo, hi := indexRange(indexID)
	it, err := NewRangeIter(r, lo, hi)
	if err != nil {
		return 0, err
	}
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		n += int64(len(it.Key()) + len(it.Value()))
	}
	err = it.Error()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// IndexSpanDiskUsage estimates the on-disk bytes of the entries of
// indexID whose keystring lies in [lo, hi); a nil hi means the end of the
// index.
func (db *DB) IndexSpanDiskUsage(indexID uint64, lo, hi []byte) (uint64, error) {
	a := append(appendIndexPrefix(nil, indexID), lo...)
	var b []byte
	if hi == nil {
		_, b = indexRange(indexID)
	} else {
		b = append(appendIndexPrefix(nil, indexID), hi...)
	}
	return db.EstimateDiskUsage(a, b)
}

// IndexLoad writes the entries of a new index, given in any order,
// through a SortedLoad (see it for the rules: the index id must be fresh).
type IndexLoad struct {
	l       *SortedLoad
	indexID uint64
	kb      []byte
}

// NewIndexLoad starts the load of the entries of indexID. check, when
// not nil, is called with each pair of neighbouring entries in order (the
// keystrings of both and the record of the second); an error stops the
// load.
func (db *DB) NewIndexLoad(indexID uint64, check func(prevKS, ks []byte, rid RecordID) error) *IndexLoad {
	var c func(prev, cur []byte) error
	if check != nil {
		c = func(prev, cur []byte) error {
			pks, _ := splitIndexKey(prev)
			cks, rid := splitIndexKey(cur)
			return check(pks, cks, RecordID(rid))
		}
	}
	l := db.NewSortedLoad(indexPrefixLen, c)
	// A build adds a record's entries in record order: equal keystrings
	// come with rising record ids (bucketsort.go checks it).
	l.SetRisingSuffix(8)
	return &IndexLoad{l: l, indexID: indexID}
}

// Add adds the entry (ks, rid) with type bits tb; all are copied. head
// is the length of ks's first field (0: not known): the sort groups on it
// when it can (bucketsort.go).
func (l *IndexLoad) Add(ks []byte, rid RecordID, tb []byte, head int) error {
	l.kb = appendIndexKey(l.kb[:0], l.indexID, ks, uint64(rid))
	return l.l.AddHead(l.kb, tb, head)
}

// SetBudget sets the load's in-memory sort budget in bytes (default
// DefaultSortBudget); call it before SizeHint and Add.
func (l *IndexLoad) SetBudget(n int) { l.l.SetBudget(n) }

// SizeHint says how many more entries are about to be added.
func (l *IndexLoad) SizeHint(n int) { l.l.SizeHint(n) }

// Keys returns the number of entries added so far.
func (l *IndexLoad) Keys() int64 { return l.l.Keys() }

// OnEmitted sets the progress callback while the entries are written.
func (l *IndexLoad) OnEmitted(fn func(done, total int64)) { l.l.OnEmitted = fn }

// Finish writes the entries (see SortedLoad.Finish).
func (l *IndexLoad) Finish(ctx context.Context) (uint64, error) { return l.l.Finish(ctx) }

// Abort drops the load (see SortedLoad.Abort).
func (l *IndexLoad) Abort() { l.l.Abort() }
