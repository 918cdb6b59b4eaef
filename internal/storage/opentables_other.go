//go:build !unix

package storage

// fileLimit: no descriptor limit to read here; Pebble's default applies.
func fileLimit() (uint64, bool) { return 0, false }
