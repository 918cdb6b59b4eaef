package storage

// Engine metadata: small named values kept beside the catalog (the
// oplog's trim point), under keys only this package builds.

// SetMeta adds the write of the metadata value name to b.
func SetMeta(b *Batch, name string, value []byte) error {
	return b.set(metaKey(name), value)
}

// GetMeta reads the metadata value name, appending it to dst.
func (db *DB) GetMeta(name string, dst []byte) (val []byte, found bool, err error) {
	return db.Get(metaKey(name), dst)
}
