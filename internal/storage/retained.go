package storage

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Retained records: the records of a dropped collection kept because
// entries of the operation log still refer to them (package oplog,
// reference runs), until the log is trimmed past those entries. The
// collection's catalog entry and indexes go with the drop; a catalog key
// per collection, catalogRetained | collID, holds the timestamp of the
// last entry that refers to its records.

// catalogRetained is the catalog sub-kind of retained records.
const catalogRetained byte = 0x04

func retainedKey(collID uint64) []byte {
	k := make([]byte, 0, 10)
	k = append(k, kindCatalog, catalogRetained)
	return binary.BigEndian.AppendUint64(k, collID)
}

// RetainRecords adds to b, in place of DeleteRecords, the note that the
// records of collID, dropped, stay until the log's entries through ts are
// trimmed (ReleaseRecords).
func RetainRecords(b *Batch, collID, ts uint64) error {
	return b.set(retainedKey(collID), binary.BigEndian.AppendUint64(nil, ts))
}

// ReleaseRecords adds to b the removal of the retained records of collID
// and of their note.
func ReleaseRecords(b *Batch, collID uint64) error {
	if err := DeleteRecords(b, collID); err != nil {
		return err
	}
	return b.del(retainedKey(collID))
}

// RetainedRecords returns the collections whose records are retained,
// with the timestamp each waits for.
func RetainedRecords(r Reader) (map[uint64]uint64, error) {
	lo := []byte{kindCatalog, catalogRetained}
	it, err := r.newIter(&pebble.IterOptions{LowerBound: lo, UpperBound: []byte{kindCatalog, catalogRetained + 1}})
	if err != nil {
		return nil, fmt.Errorf("storage: retained records: %w", err)
	}
	out := map[uint64]uint64{}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return nil, fmt.Errorf("storage: retained records: %w", err)
		}
		if len(k) != 10 || len(v) != 8 {
			it.Close()
			return nil, fmt.Errorf("storage: retained records: malformed entry %x", k)
		}
		out[binary.BigEndian.Uint64(k[2:])] = binary.BigEndian.Uint64(v)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, fmt.Errorf("storage: retained records: %w", err)
	}
	return out, nil
}
