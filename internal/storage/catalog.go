package storage

import "fmt"

// Catalog store.
//
// The engine's catalog is one entry per collection (its metadata and
// index specs, encoded by the engine), keyed by collection id under
// kindCatalog, next to named metadata entries (MetaKey). The engine reads
// and writes entries by collection id; it never builds their keys.

// SetCollectionEntry adds to b the write of collID's catalog entry.
func SetCollectionEntry(b *Batch, collID uint64, entry []byte) error {
	return b.set(collectionKey(collID), entry)
}

// DeleteCollectionEntry adds to b the removal of collID's catalog entry.
func DeleteCollectionEntry(b *Batch, collID uint64) error {
	return b.del(collectionKey(collID))
}

// CollectionEntries calls fn with every collection's catalog entry, in
// collection id order, until fn returns an error. The entry is valid only
// during the call.
func CollectionEntries(r Reader, fn func(entry []byte) error) error {
	lo, hi := collectionKeyRange()
	it, err := NewRangeIter(r, lo, hi)
	if err != nil {
		return fmt.Errorf("storage: catalog iterator: %w", err)
	}
	defer it.Close()
	for valid := it.First(); valid; valid = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return fmt.Errorf("storage: catalog scan: %w", err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("storage: catalog scan: %w", err)
	}
	return nil
}
