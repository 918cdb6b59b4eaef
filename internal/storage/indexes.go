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
	// dict holds the entries while they fit a dictionary (keydict.go);
	// nil once they do not, or for a unique index.
	dict *keyDict
	// started: an entry was added (the dictionary is decided at the first).
	started bool
	hint    int // SizeHint's, for the arena if the dictionary gives up
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
	il := &IndexLoad{l: l, indexID: indexID}
	if check == nil {
		il.dict = newKeyDict(l.budget)
	}
	return il
}

// Add adds the entry (ks, rid) with type bits tb; all are copied. head
// is the length of ks's first field (0: not known): the sort groups on it
// when it can (bucketsort.go).
func (l *IndexLoad) Add(ks []byte, rid RecordID, tb []byte, head int) error {
	if l.dict != nil {
		if !l.started {
			// A compound key's entries are grouped on their first field,
			// a single field's on the whole keystring.
			l.dict.start(head > 0)
		}
		l.started = true
		if l.dict.add(ks, uint64(rid), tb, head) {
			return nil
		}
		if err := l.leaveDict(); err != nil {
			return err
		}
	}
	l.kb = appendIndexKey(l.kb[:0], l.indexID, ks, uint64(rid))
	return l.l.AddHead(l.kb, tb, head)
}

// leaveDict moves the dictionary's entries to the arena, in key order
// (a rising load's order, which the arena may then stream), and stops
// using it.
func (l *IndexLoad) leaveDict() error {
	d := l.dict
	l.dict = nil
	if !d.rising {
		// A rising load is streamed from its first megabytes on
		// (bulkstream.go): it never fills an entry table of its size.
		l.l.SizeHint(l.hint)
	}
	order, _ := d.order()
	src := &dictSource{d: d, indexID: l.indexID, order: order}
	for {
		k, v, ok, _ := src.next()
		if !ok {
			return nil
		}
		if err := l.l.AddHead(k, v, src.head); err != nil {
			return err
		}
	}
}

// SetBudget sets the load's in-memory sort budget in bytes (default
// DefaultSortBudget); call it before SizeHint and Add.
func (l *IndexLoad) SetBudget(n int) {
	l.l.SetBudget(n)
	if l.dict != nil {
		l.dict.max = n
	}
}

// SizeHint says how many more entries are about to be added.
func (l *IndexLoad) SizeHint(n int) {
	if l.dict == nil {
		l.l.SizeHint(n)
		return
	}
	// The arena's entry table is sized if the dictionary gives up; most
	// loads that start in it end in it.
	l.hint += n
}

// Keys returns the number of entries added so far.
func (l *IndexLoad) Keys() int64 {
	if l.dict != nil {
		return l.l.Keys() + int64(l.dict.n)
	}
	return l.l.Keys()
}

// OnEmitted sets the progress callback while the entries are written.
func (l *IndexLoad) OnEmitted(fn func(done, total int64)) { l.l.OnEmitted = fn }

// Finish writes the entries (see SortedLoad.Finish).
func (l *IndexLoad) Finish(ctx context.Context) (uint64, error) {
	if d := l.dict; d != nil && d.n > 0 {
		order, ok := d.order()
		if ok {
			defer l.l.Abort()
			l.l.keys = int64(d.n) // progress counts them
			return l.l.finishFrom(ctx, &dictSource{d: d, indexID: l.indexID, order: order}, d.bytes())
		}
		if err := l.leaveDict(); err != nil {
			l.l.Abort()
			return 0, err
		}
	}
	return l.l.Finish(ctx)
}

// Abort drops the load (see SortedLoad.Abort).
func (l *IndexLoad) Abort() { l.l.Abort() }
