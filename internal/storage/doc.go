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
//	0x02 record    0x02 | collectionID BE | recordID BE -> document (BSON)
//	0x03 index     0x03 | indexID BE | keystring | recordID BE -> typebits or empty
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
package storage
