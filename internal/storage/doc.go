// Package storage wraps Pebble for Lode: the binary key layout, write
// batches, snapshots and scans, and the durability policy (WAL commits
// without sync, a periodic background sync and group-committed fsyncs for
// j:true writers). It knows nothing about MongoDB semantics.
//
// # Key layout
//
// Every key starts with one kind byte:
//
//	0x01 catalog   0x01 | 0x00 | name            -> engine metadata (counters)
//	               0x01 | 0x01 | collectionID BE  -> collection catalog entry (BSON)
//	               0x01 | 0x02 | collectionID BE | block BE -> empty: clustered RecordIDs in use
//	0x02 record    0x02 | collectionID BE | recordID BE -> document (BSON)
//	               0x02 | collectionID BE | cluster keystring -> recordID BE | document
//	                 (a clustered collection's records: clustered.go)
//	0x03 index     0x03 | indexID BE | keystring | recordID BE -> typebits or empty
//	                 (a clustered collection's: uvarint len | cluster keystring | typebits)
//
// All indexes, unique or not, use the same entry layout (indexID,
// keystring, recordID). We chose one layout over DESIGN's "(indexID,
// keystring) -> recordID for unique indexes" because (a) every index scan
// decodes the same way (the recordID is always the last 8 bytes of the key),
// so the query executor needs no special case; (b) changing an index between
// unique and non-unique never rewrites entries; and (c) the uniqueness check
// is a bounded seek over the keys that start with (indexID, keystring) and
// compares the keystring part exactly, which costs one seek, the same as a
// point Get. The check runs while the collection's writer lock is held, so
// no other writer can insert a conflicting key between the check and the
// commit.
//
// Index entries are written once and removed once (an update only touches
// entries whose key changed), so they are removed with SingleDelete, which
// leaves fewer tombstones behind in queue-like workloads. Records are
// overwritten in place and are removed with Delete.
//
// # Record store
//
// Only records.go knows the record key layout. The rest of Lode names a
// collection's records by RecordID and goes through the record store:
// GetRecord, SetRecord, DeleteRecord; a RecordCursor (NewRecordCursor,
// NewRecordRangeCursor, or Open on a cursor kept in the caller's struct)
// with Next (record order, either direction), SeekAfter, SeekExact (one
// record by id) and FetchAscending (a sorted run of ids, as a batched
// FETCH reads them); and whole-collection helpers for drop, capped
// trimming, partitioning and statistics (DeleteRecords, SplitRecords,
// DB.RecordsDiskUsage), and RecordIDs, the allocator of a collection's
// new record ids. The cursor decides how to reach a
// record: it reuses one iterator, steps with Next when the record is a
// few ids ahead of where it stands and seeks otherwise, so FETCH only
// names record ids, like MongoDB's FETCH calling seekExact on a
// RecordStore cursor. A clustered collection's records (clustered.go)
// are keyed by their _id's keystring instead and reached by it (SeekKey,
// GetClusteredRecord), the key its index entries carry.
//
// # Index, catalog and session stores
//
// Likewise the index store (indexes.go, scan.go) names an entry by index
// id, keystring and RecordID: SetIndexEntry, DeleteIndexEntry,
// DeleteIndexEntries, an IndexCursor, an IndexProbe
// for unique checks, IndexLoad for builds, and lock keys
// (AppendIndexEntryLockKey, AppendIndexKeyLockKey, AppendRecordLockKey)
// that name an entry, a keystring or a record for conflict tables without
// being taken apart. The catalog store (catalog.go) keeps collection
// entries by collection id, the session store (sessions.go) session and
// statement records by session id. Only the oplog's keys (OplogKey,
// OplogImageKey) and MetaKey are still built outside the stores.
//
// Outside this package Lode does not import Pebble (TestStorageLayering
// keeps it so; its allow-list names the exceptions). Batch, Snapshot, FS
// and Reader are storage's own types that expose only what callers need,
// so no Pebble type or method is reachable through them
// (TestNoPebbleInAPI checks storage's exported signatures), and
// NewRangeIter opens a bounded iterator.
package storage
