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

// KindOplog prefixes the operation log's entries, keyed by timestamp.
const KindOplog byte = 0x04

// OplogKey returns the key of the oplog entry at timestamp ts.
func OplogKey(ts uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{KindOplog}, ts)
}

// OplogTS extracts the timestamp of an oplog key.
func OplogTS(k []byte) uint64 { return binary.BigEndian.Uint64(k[1:9]) }

// OplogRange returns the bounds [lo, hi) of every oplog entry.
func OplogRange() (lo, hi []byte) { return []byte{KindOplog}, []byte{KindOplog + 1} }

// KindOplogImage prefixes the pre- and post-images of changes to
// collections with changeStreamPreAndPostImages, keyed by the oplog
// timestamp and the operation's index in its entry.
const KindOplogImage byte = 0x05

// OplogImageKey returns the key of the images of operation op of the
// oplog entry at ts.
func OplogImageKey(ts uint64, op uint32) []byte {
	k := binary.BigEndian.AppendUint64([]byte{KindOplogImage}, ts)
	return binary.BigEndian.AppendUint32(k, op)
}
