package server

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// processMemory returns serverStatus mem.resident and mem.virtual in MiB,
// as MongoDB reports them. On Linux they are the process's resident set
// and virtual size from /proc/self/statm; elsewhere (or if /proc cannot be
// read) they fall back to the Go runtime's figures: heap in use as
// resident, memory obtained from the OS as virtual.
func processMemory() (resident, virtual int64) {
	if rss, vsz, ok := readStatm(); ok {
		return rss >> 20, vsz >> 20
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse >> 20), int64(ms.Sys >> 20)
}

// readStatm reads the virtual and resident sizes in bytes from
// /proc/self/statm (fields "size resident ..." counted in pages).
func readStatm() (rss, vsz int64, ok bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, false
	}
	size, err1 := strconv.ParseInt(f[0], 10, 64)
	res, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	page := int64(os.Getpagesize())
	return res * page, size * page, true
}
