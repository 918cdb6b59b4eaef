package storage

import (
	"encoding/binary"
	"errors"

	"github.com/cockroachdb/pebble/v2"
)

// A batch committed by ingestion writes its session records (sessions.go)
// through the WAL, not in a table of its own. Each batch rewrites its
// session's header, a key that exists already, so its table overlapped the
// previous one's: it went into a level above the data, to be compacted
// and deleted again, one table in four of every batch of a bulk insert,
// and the deletions made each later table's creation slower on a
// filesystem without a journal (docs/benchmarks.md, seventh session of
// issue 33, "The session's records of a bulk insert through the WAL").
//
// The session records stay exactly as durable as the batch, by a redo
// record:
//  1. before the WAL sync that precedes every ingestion, a redo record
//     (catalog key 0x01 | 0x03 | seq) is committed with the session writes
//     and a witness: the first key of the batch's oplog entries, a key no
//     earlier write made;
//  2. the batch's other tables are ingested, durably;
//  3. the session writes are applied and the redo record deleted, in one
//     commit.
//
// At open (replayIngestRedo) a redo record left by a crash is applied when
// its witness exists (the ingestion happened), and dropped when it does
// not; then deleted. A later durable write implies step 3's, which came
// before it in the WAL, and every later ingestion syncs the WAL first, so
// a redo record found at open is its session's latest state. Without oplog
// entries (the oplog off) there is no witness, and the session records are
// ingested with the rest.

// catalogIngestRedo is the catalog sub-kind of redo records.
const catalogIngestRedo byte = 0x03

// ingestRedoKey returns the key of the redo record of ingestion seq.
func ingestRedoKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{kindCatalog, catalogIngestRedo}, seq)
}

// splitRedo takes the session group out of groups when the batch has
// oplog entries to witness it, and returns it with the witness.
func splitRedo(groups [][]ingestEntry) (rest [][]ingestEntry, redo []ingestEntry, witness []byte) {
	si, oi := -1, -1
	for i, g := range groups {
		switch g[0].key[0] {
		case kindSession:
			si = i
		case KindOplog:
			oi = i
		}
	}
	if si < 0 || oi < 0 {
		return groups, nil, nil
	}
	rest = make([][]ingestEntry, 0, len(groups)-1)
	rest = append(append(rest, groups[:si]...), groups[si+1:]...)
	return rest, groups[si], groups[oi][0].key
}

// encodeRedo encodes witness and writes as a redo record's value.
func encodeRedo(witness []byte, writes []ingestEntry) []byte {
	n := binary.MaxVarintLen64 + len(witness)
	for _, e := range writes {
		n += 2*binary.MaxVarintLen64 + len(e.key) + len(e.value)
	}
	v := make([]byte, 0, n)
	v = binary.AppendUvarint(v, uint64(len(witness)))
	v = append(v, witness...)
	for _, e := range writes {
		v = binary.AppendUvarint(v, uint64(len(e.key)))
		v = append(v, e.key...)
		v = binary.AppendUvarint(v, uint64(len(e.value)))
		v = append(v, e.value...)
	}
	return v
}

// errBadRedo reports a redo record that does not decode.
var errBadRedo = errors.New("storage: malformed ingestion redo record")

// redoField splits the length-prefixed field at the start of v from the
// rest.
func redoField(v []byte) (f, rest []byte, err error) {
	n, w := binary.Uvarint(v)
	if w <= 0 || uint64(len(v)-w) < n {
		return nil, nil, errBadRedo
	}
	return v[w : w+int(n)], v[w+int(n):], nil
}

// replayIngestRedo finishes or drops, at open, the redo records a crash
// left (see above).
func (db *DB) replayIngestRedo() (err error) {
	it, err := db.pdb.NewIter(&pebble.IterOptions{
		LowerBound: []byte{kindCatalog, catalogIngestRedo},
		UpperBound: []byte{kindCatalog, catalogIngestRedo + 1},
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, it.Close()) }()
	pb := db.pdb.NewBatch()
	defer pb.Close()
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		witness, writes, err := redoField(v)
		if err != nil {
			return err
		}
		_, landed, err := db.Get(witness, nil)
		if err != nil {
			return err
		}
		for landed && len(writes) > 0 {
			var k, val []byte
			if k, writes, err = redoField(writes); err == nil {
				val, writes, err = redoField(writes)
			}
			if err == nil {
				err = pb.Set(k, val, nil)
			}
			if err != nil {
				return err
			}
		}
		if err := pb.Delete(it.Key(), nil); err != nil {
			return err
		}
	}
	if pb.Empty() {
		return nil
	}
	return pb.Commit(pebble.Sync)
}

// ingestRedoHook, when set (tests), is called at stage 1 (the redo record
// and the WAL durable, nothing ingested) and stage 2 (ingested, the
// session writes not yet applied).
var ingestRedoHook func(stage int)
