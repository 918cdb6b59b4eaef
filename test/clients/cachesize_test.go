package clients

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCacheSizeFlag checks lode serve --cache-size-gb (mongod's
// --wiredTigerCacheSizeGB) through mongosh: serverStatus reports the
// configured block cache capacity, the default is 0.5 GiB, the mongod
// spelling is accepted, and a size out of range stops the server with an
// error that names the flag and the range.
func TestCacheSizeFlag(t *testing.T) {
	script := filepath.Join(t.TempDir(), "cachesize.js")
	if err := os.WriteFile(script, []byte("print('max=' + db.adminCommand({serverStatus: 1}).lode.storage.blockCacheMaxBytes)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{nil, 512 << 20},
		{[]string{"--cache-size-gb", "0.75"}, 768 << 20},
		{[]string{"--wiredTigerCacheSizeGB", "2"}, 2 << 30},
	} {
		s := startServer(t, tc.args...)
		out := runMongosh(t, s, script)
		i := strings.Index(out, "max=")
		if i < 0 {
			t.Fatalf("%v: no figure in mongosh output %q", tc.args, out)
		}
		got, err := strconv.ParseInt(strings.TrimSpace(out[i+4:]), 10, 64)
		if err != nil || got != tc.want {
			t.Errorf("%v: blockCacheMaxBytes = %q, want %d", tc.args, out[i+4:], tc.want)
		}
		s.stop()
	}
	for _, bad := range []string{"0.1", "0", "20000", "NaN"} {
		out, err := exec.Command(lodeBin, "serve", "--addr", "127.0.0.1:0", "--dir", t.TempDir(), "--cache-size-gb", bad).CombinedOutput()
		if err == nil {
			t.Fatalf("--cache-size-gb %s: the server started", bad)
		}
		if !strings.Contains(string(out), "bad --cache-size-gb "+bad) || !strings.Contains(string(out), "between 0.25 and 10000") {
			t.Errorf("--cache-size-gb %s: error %q does not name the flag and the range", bad, out)
		}
	}
}
