package oplog

import (
	"fmt"

	"github.com/lodedb/lode/internal/storage"
)

// Records are the log's entries whose timestamps lie in [Lo, Hi], as a
// record source of mongod's BSON documents: what a find on
// local.oplog.rs and the oplog's tailable cursors scan. Its RecordIDs
// are the timestamps.
type Records struct{ Lo, Hi TS }

// OpenRecords implements storage.RecordSource.
func (o Records) OpenRecords(r storage.Reader, reverse bool) (storage.RecordIterator, error) {
	cur, err := storage.NewOplogCursor(r, uint64(o.Lo), uint64(o.Hi), reverse)
	if err != nil {
		return nil, err
	}
	return &records{cur: cur}, nil
}

// records expands the stored entries of a cursor (stored.go).
type records struct {
	cur *storage.OplogCursor
	err error
}

func (r *records) Next() (storage.RecordID, []byte, bool) {
	rid, v, ok := r.cur.Next()
	if !ok {
		return 0, nil, false
	}
	doc, err := expand(nil, v, TS(rid)) // not reused: a scan may keep it
	if err != nil {
		r.err = fmt.Errorf("oplog: entry %d: %w", rid, err)
		return 0, nil, false
	}
	return rid, doc, true
}

func (r *records) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.cur.Err()
}

func (r *records) Close() error { return r.cur.Close() }
