package storage

import "encoding/binary"

// Key kind prefixes.
const (
	KindCatalog byte = 0x01
	KindRecord  byte = 0x02
	KindIndex   byte = 0x03
)

// Catalog sub-kinds.
const (
	catalogMeta       byte = 0x00
	catalogCollection byte = 0x01
)

// MetaKey returns the catalog key of an engine metadata entry.
func MetaKey(name string) []byte {
	k := make([]byte, 0, 2+len(name))
	k = append(k, KindCatalog, catalogMeta)
	return append(k, name...)
}

// CollectionKey returns the catalog key of a collection's entry.
func CollectionKey(collID uint64) []byte {
	k := make([]byte, 0, 10)
	k = append(k, KindCatalog, catalogCollection)
	return binary.BigEndian.AppendUint64(k, collID)
}

// CollectionKeyRange returns the bounds [lo, hi) of all collection entries.
func CollectionKeyRange() (lo, hi []byte) {
	return []byte{KindCatalog, catalogCollection}, []byte{KindCatalog, catalogCollection + 1}
}

// AppendIndexPrefix appends the prefix shared by all entries of indexID.
func AppendIndexPrefix(dst []byte, indexID uint64) []byte {
	dst = append(dst, KindIndex)
	return binary.BigEndian.AppendUint64(dst, indexID)
}

// IndexPrefixLen is the length of an index prefix.
const IndexPrefixLen = 9

// AppendIndexKey appends the key of the entry (indexID, ks, recID).
func AppendIndexKey(dst []byte, indexID uint64, ks []byte, recID uint64) []byte {
	dst = AppendIndexPrefix(dst, indexID)
	dst = append(dst, ks...)
	return binary.BigEndian.AppendUint64(dst, recID)
}

// SplitIndexKey splits an index entry key into its keystring and recordID.
func SplitIndexKey(k []byte) (ks []byte, recID uint64) {
	n := len(k) - 8
	return k[IndexPrefixLen:n], binary.BigEndian.Uint64(k[n:])
}

// IndexRange returns the bounds [lo, hi) of every entry of indexID.
func IndexRange(indexID uint64) (lo, hi []byte) {
	lo = AppendIndexPrefix(nil, indexID)
	return lo, prefixEnd(lo)
}

// PrefixEnd returns the smallest key greater than every key that starts
// with p, or nil when there is none (p is all 0xff).
func PrefixEnd(p []byte) []byte { return prefixEnd(p) }

func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// KindOplog prefixes the operation log's entries, keyed by timestamp;
// KindOplogImage the pre- and post-images of changes to collections with
// changeStreamPreAndPostImages, keyed by the oplog timestamp and the
// operation's index in its entry. oplog.go lays both out.
const (
	KindOplog      byte = 0x04
	KindOplogImage byte = 0x05
)

// KindSession prefixes the sessions' retryable-write and transaction
// records (mongod's config.transactions): the header of session id at
// SessionKey(id), the results of the statements of its transaction
// number txn at SessionStmtKey(id, txn, stmt).
const KindSession byte = 0x06

// SessionKey returns the key of session id's record.
func SessionKey(id []byte) []byte {
	k := make([]byte, 0, 2+len(id))
	k = append(k, KindSession, byte(len(id)))
	return append(k, id...)
}

// SessionStmtKey returns the key of statement stmt of transaction number
// txn of session id.
func SessionStmtKey(id []byte, txn int64, stmt int32) []byte {
	k := append(SessionKey(id), 0x01)
	k = binary.BigEndian.AppendUint64(k, uint64(txn))
	return binary.BigEndian.AppendUint32(k, uint32(stmt))
}

// SessionStmtRange returns the bounds [lo, hi) of the statement keys of
// session id, every transaction number.
func SessionStmtRange(id []byte) (lo, hi []byte) {
	lo = append(SessionKey(id), 0x01)
	hi = append(SessionKey(id), 0x02)
	return lo, hi
}

// SessionRange returns the bounds [lo, hi) of every key of session id
// (its header and statements).
func SessionRange(id []byte) (lo, hi []byte) {
	lo = SessionKey(id)
	return lo, append(SessionKey(id), 0xff)
}

// SessionsRange returns the bounds [lo, hi) of every session key.
func SessionsRange() (lo, hi []byte) { return []byte{KindSession}, []byte{KindSession + 1} }

// IsSessionHeaderKey reports whether k (in SessionsRange) is a session's
// header, and returns the session id.
func IsSessionHeaderKey(k []byte) ([]byte, bool) {
	if len(k) < 2 || k[0] != KindSession || len(k) != 2+int(k[1]) {
		return nil, false
	}
	return k[2:], true
}
