package storage

import "fmt"

// RecordIDs allocates the RecordIDs of one collection's new records, in
// increasing order, never reusing one within a run. The engine keeps one
// per collection, seeded at open (OpenRecordIDs), and calls it under the
// collection's writer lock: it is not safe for concurrent use. How ids
// are chosen is the record store's business (today a counter over the
// highest record's id).
type RecordIDs struct{ last RecordID }

// OpenRecordIDs returns the allocator of collID, seeded past the highest
// record of collID in r.
func OpenRecordIDs(r Reader, collID uint64) (RecordIDs, error) {
	_, last, err := recordSpan(r, collID)
	if err != nil {
		return RecordIDs{}, err
	}
	return RecordIDs{last: last}, nil
}

// Peek returns the id the next new record gets, without taking it.
func (a *RecordIDs) Peek() RecordID { return a.last + 1 }

// Take takes the id Peek returns and returns it.
func (a *RecordIDs) Take() RecordID {
	a.last++
	return a.last
}

// Taken returns how many ids the collection has had: an upper bound of
// its record count, exact for a collection never deleted from (an index
// build's progress total).
func (a *RecordIDs) Taken() int64 { return int64(a.last) }

// RecordSplit is a part of a collection's records: those whose RecordID
// lies in [Lo, Hi).
type RecordSplit struct{ Lo, Hi RecordID }

// SplitRecords divides the records of collID in r into n parts of about
// equal id spans, in record order, for parallel scans (open each with
// NewRecordRangeCursor). It returns nil when the collection's ids span
// fewer than n+1 values.
func SplitRecords(r Reader, collID uint64, n int) ([]RecordSplit, error) {
	first, last, err := recordSpan(r, collID)
	if err != nil {
		return nil, fmt.Errorf("storage: split records: %w", err)
	}
	if n <= 0 || uint64(last-first) < uint64(n) {
		return nil, nil
	}
	span := uint64(last - first + 1)
	parts := make([]RecordSplit, n)
	for i := range parts {
		parts[i] = RecordSplit{
			Lo: first + RecordID(span*uint64(i)/uint64(n)),
			Hi: first + RecordID(span*uint64(i+1)/uint64(n)),
		}
	}
	return parts, nil
}
