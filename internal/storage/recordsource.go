package storage

// RecordIterator reads records in order: a collection's (RecordCursor)
// or the oplog's (OplogCursor, whose RecordIDs are timestamps). The
// query executor's COLLSCAN reads through it, so it need not know which
// store it scans.
type RecordIterator interface {
	// Next advances to the next record; the slice is valid only until
	// the iterator moves again. ok is false at the end or on error.
	Next() (rid RecordID, doc []byte, ok bool)
	// Err returns the error that ended Next, if any.
	Err() error
	// Close releases the iterator.
	Close() error
}

// RecordSource opens the iterators over one store of records.
type RecordSource interface {
	// OpenRecords opens an iterator of r over every record of the source,
	// backward when reverse.
	OpenRecords(r Reader, reverse bool) (RecordIterator, error)
}

// CollectionRecords is the record store of the collection with this id.
type CollectionRecords uint64

// OpenRecords implements RecordSource.
func (c CollectionRecords) OpenRecords(r Reader, reverse bool) (RecordIterator, error) {
	cur, err := NewRecordCursor(r, uint64(c), reverse)
	if err != nil {
		return nil, err
	}
	return cur, nil
}
