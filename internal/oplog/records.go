package oplog

import "github.com/lodedb/lode/internal/storage"

// Records are the log's entries whose timestamps lie in [Lo, Hi], as a
// record source of mongod's BSON documents: what a find on
// local.oplog.rs and the oplog's tailable cursors scan. Its RecordIDs
// are the timestamps.
type Records struct{ Lo, Hi TS }

// OpenRecords implements storage.RecordSource.
func (o Records) OpenRecords(r storage.Reader, reverse bool) (storage.RecordIterator, error) {
	cur, err := openCursor(r, o.Lo, o.Hi, reverse)
	if err != nil {
		return nil, err
	}
	return &records{cur: cur}, nil
}

// records are the documents of a cursor (runs.go), each the scan's to
// keep.
type records struct{ cur *cursor }

func (r *records) Next() (storage.RecordID, []byte, bool) {
	ts, doc, ok := r.cur.Next()
	return storage.RecordID(ts), doc, ok
}

func (r *records) Err() error { return r.cur.Err() }

func (r *records) Close() error { return r.cur.Close() }
