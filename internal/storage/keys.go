package storage

import "encoding/binary"

// Key kind prefixes.
const (
	kindCatalog byte = 0x01
	kindRecord  byte = 0x02
	kindIndex   byte = 0x03
)

// Catalog sub-kinds.
const (
	catalogMeta       byte = 0x00
	catalogCollection byte = 0x01
)

// metaKey returns the catalog key of an engine metadata entry.
func metaKey(name string) []byte {
	k := make([]byte, 0, 2+len(name))
	k = append(k, kindCatalog, catalogMeta)
	return append(k, name...)
}

// collectionKey returns the catalog key of a collection's entry.
func collectionKey(collID uint64) []byte {
	k := make([]byte, 0, 10)
	k = append(k, kindCatalog, catalogCollection)
	return binary.BigEndian.AppendUint64(k, collID)
}

// collectionKeyRange returns the bounds [lo, hi) of all collection entries.
func collectionKeyRange() (lo, hi []byte) {
	return []byte{kindCatalog, catalogCollection}, []byte{kindCatalog, catalogCollection + 1}
}

// appendIndexPrefix appends the prefix shared by all entries of indexID.
func appendIndexPrefix(dst []byte, indexID uint64) []byte {
	dst = append(dst, kindIndex)
	return binary.BigEndian.AppendUint64(dst, indexID)
}

// indexPrefixLen is the length of an index prefix.
const indexPrefixLen = 9

// appendIndexKey appends the key of the entry (indexID, ks, recID).
func appendIndexKey(dst []byte, indexID uint64, ks []byte, recID uint64) []byte {
	dst = appendIndexPrefix(dst, indexID)
	dst = append(dst, ks...)
	return binary.BigEndian.AppendUint64(dst, recID)
}

// splitIndexKey splits an index entry key into its keystring and recordID.
func splitIndexKey(k []byte) (ks []byte, recID uint64) {
	n := len(k) - 8
	return k[indexPrefixLen:n], binary.BigEndian.Uint64(k[n:])
}

// indexRange returns the bounds [lo, hi) of every entry of indexID.
func indexRange(indexID uint64) (lo, hi []byte) {
	lo = appendIndexPrefix(nil, indexID)
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
