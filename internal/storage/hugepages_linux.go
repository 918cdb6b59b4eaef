package storage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageSize is the size of a transparent huge page on the platforms
// Lode runs on (x86-64 and arm64 with 4 KiB base pages).
const hugePageSize = 2 << 20

// adviseHugePages asks the kernel to back the 2 MiB-aligned interior of
// b with transparent huge pages (MADV_HUGEPAGE), for a large buffer just
// allocated and not yet written: its first writes then fault in a huge
// page at a time instead of 512 base pages. It only advises; where
// transparent huge pages are off, or b holds no aligned huge page, it
// does nothing.
func adviseHugePages(b []byte) {
	if cap(b) < 2*hugePageSize {
		return
	}
	b = b[:cap(b)]
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start+hugePageSize-1)&^(hugePageSize-1) - start
	hi := (start+uintptr(len(b)))&^(hugePageSize-1) - start
	if lo >= hi {
		return
	}
	_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
}
