package storage

import (
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Oplog store.
//
// The operation log's entries are records named by their timestamp (a
// RecordID that is the entry's ts), one key each, KindOplog | ts
// big-endian, so that the key order is the timestamp order. The images
// a change stream reads are beside them, KindOplogImage | ts | op. This
// file is the only code that knows that layout: package oplog writes and
// trims through SetOplogEntry, SetOplogImage and DeleteOplogThrough, and
// every reader (the log's own scans, and the query executor's COLLSCAN of
// local.oplog.rs) goes through an OplogCursor.

// oplogKeyLen is the length of an oplog entry key.
const oplogKeyLen = 9

// appendOplogKey appends the key of the oplog entry at timestamp ts.
func appendOplogKey(dst []byte, ts uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, KindOplog), ts)
}

// oplogTS extracts the timestamp of an oplog key (entry or image).
func oplogTS(k []byte) uint64 { return binary.BigEndian.Uint64(k[1:9]) }

// oplogImageKey returns the key of the images of operation op of the
// oplog entry at ts.
func oplogImageKey(ts uint64, op uint32) []byte {
	k := binary.BigEndian.AppendUint64([]byte{KindOplogImage}, ts)
	return binary.BigEndian.AppendUint32(k, op)
}

// SetOplogEntry adds to b the write of doc as the oplog entry at ts.
func SetOplogEntry(b *Batch, ts uint64, doc []byte) error {
	var kb [oplogKeyLen]byte
	return b.set(appendOplogKey(kb[:0], ts), doc)
}

// SetOplogImage adds to b the write of the images of operation op of the
// entry at ts.
func SetOplogImage(b *Batch, ts uint64, op uint32, doc []byte) error {
	return b.set(oplogImageKey(ts, op), doc)
}

// GetOplogImage reads the images of operation op of the entry at ts.
func (db *DB) GetOplogImage(ts uint64, op uint32) (doc []byte, found bool, err error) {
	return db.Get(oplogImageKey(ts, op), nil)
}

// DeleteOplogThrough adds to b the removal of every oplog entry, and
// every image, at or before ts.
func DeleteOplogThrough(b *Batch, ts uint64) error {
	if err := b.deleteRange([]byte{KindOplog}, appendOplogKey(nil, ts+1)); err != nil {
		return err
	}
	return b.deleteRange([]byte{KindOplogImage}, oplogImageKey(ts+1, 0))
}

// OplogCursor reads oplog entries (or, opened with NewOplogImageCursor,
// images) in timestamp order, forward or backward, within timestamp
// bounds. Its RecordIDs are the timestamps.
type OplogCursor struct {
	it         Iterator
	reverse    bool
	started    bool
	positioned bool
	err        error
}

// NewOplogCursor opens a cursor over the oplog entries of r whose
// timestamps lie in [lo, hi], newest first when reverse. hi < lo opens an
// empty cursor.
func NewOplogCursor(r Reader, lo, hi uint64, reverse bool) (*OplogCursor, error) {
	lower := appendOplogKey(nil, lo)
	var upper []byte
	if hi == ^uint64(0) {
		upper = []byte{KindOplog + 1}
	} else {
		upper = appendOplogKey(nil, hi+1)
	}
	if hi < lo {
		upper = lower
	}
	return openOplogCursor(r, lower, upper, reverse)
}

// NewOplogImageCursor opens a forward cursor over every kept image; its
// RecordIDs are the timestamps of the entries the images belong to.
func NewOplogImageCursor(r Reader) (*OplogCursor, error) {
	return openOplogCursor(r, []byte{KindOplogImage}, []byte{KindOplogImage + 1}, false)
}

func openOplogCursor(r Reader, lower, upper []byte, reverse bool) (*OplogCursor, error) {
	it, err := r.newIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("storage: oplog iterator: %w", err)
	}
	return &OplogCursor{it: it, reverse: reverse}, nil
}

// Next advances to the next entry: its timestamp and document, valid only
// until the cursor moves again; ok is false at the end or on error (see
// Err).
func (c *OplogCursor) Next() (ts RecordID, doc []byte, ok bool) {
	if !step(c.it, &c.started, &c.positioned, c.reverse) {
		c.err = c.it.Error()
		return 0, nil, false
	}
	v, err := c.it.ValueAndErr()
	if err != nil {
		c.err = err
		return 0, nil, false
	}
	return RecordID(oplogTS(c.it.Key())), v, true
}

// Err returns the error that ended Next, if any.
func (c *OplogCursor) Err() error { return c.err }

// Close releases the cursor.
func (c *OplogCursor) Close() error {
	if c.it == nil {
		return nil
	}
	err := c.it.Close()
	c.it = nil
	return err
}
