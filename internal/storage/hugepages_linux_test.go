package storage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestAdviseHugePages: a large buffer's mapping carries the huge page
// advice (smaps' VmFlags "hg") once adviseHugePages ran, its contents
// are untouched by the advice, and buffers too small to hold an aligned
// huge page are left alone without failing.
func TestAdviseHugePages(t *testing.T) {
	adviseHugePages(nil)
	adviseHugePages(make([]byte, 100))
	adviseHugePages(make([]byte, 0, hugePageSize+4096))

	b := make([]byte, 8<<20)
	adviseHugePages(b)
	for i := range b {
		b[i] = byte(i)
	}
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d: %d, want %d", i, b[i], byte(i))
		}
	}
	// The 2 MiB-aligned address inside b must lie in a mapping advised
	// for huge pages.
	start := uintptr(unsafe.Pointer(&b[0]))
	at := (start + hugePageSize - 1) &^ (hugePageSize - 1)
	flags, err := vmFlags(at)
	if err != nil {
		t.Skipf("smaps: %v", err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("mapping of %#x: VmFlags %q, want hg (MADV_HUGEPAGE)", at, flags)
	}
}

// vmFlags returns the VmFlags line of the mapping in /proc/self/smaps
// that holds address at.
func vmFlags(at uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 { // a mapping's first line
			in = lo <= at && at < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", at)
}
