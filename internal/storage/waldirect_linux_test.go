package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestWALDirectDSync: the log's direct descriptor is opened with O_DSYNC,
// so a direct write is durable when it returns and the sync that sent it
// makes no fdatasync (waldirect.go, syncDirect). The flags are the
// kernel's, read back from /proc.
func TestWALDirectDSync(t *testing.T) {
	w := newDirectTestWAL(t, openTestDB(t), filepath.Join(t.TempDir(), "d.log"))
	defer w.Close()
	info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", w.direct.fd))
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	var flags int64 = -1
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err = strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, want := range []struct {
		name string
		bit  int64
	}{{"O_DIRECT", syscall.O_DIRECT}, {"O_DSYNC", syscall.O_DSYNC}} {
		if flags < 0 || flags&want.bit == 0 {
			t.Fatalf("the log's direct descriptor lacks %s (flags %o)", want.name, flags)
		}
	}
}
