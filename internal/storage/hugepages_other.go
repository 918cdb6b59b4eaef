//go:build !linux

package storage

// adviseHugePages does nothing where madvise's MADV_HUGEPAGE does not
// exist (see hugepages_linux.go).
func adviseHugePages(b []byte) {}
