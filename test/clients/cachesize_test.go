package clients

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	cases := []struct {
		args []string
		want int64
	}{
		{nil, 512 << 20},
		{[]string{"--cache-size-gb", "0.75"}, 768 << 20},
		{[]string{"--wiredTigerCacheSizeGB", "2"}, 2 << 30},
	}
	// One mongosh asks each server in turn (one mongosh start, not three).
	var script strings.Builder
	var first *server
	for i, tc := range cases {
		s := startServer(t, tc.args...)
		if first == nil {
			first = s
		}
		fmt.Fprintf(&script, "print('max%d=' + connect(%q).adminCommand({serverStatus: 1}).lode.storage.blockCacheMaxBytes);\n", i, s.uri()+"admin")
	}
	file := filepath.Join(t.TempDir(), "cachesize.js")
	if err := os.WriteFile(file, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runMongosh(t, first, file)
	for i, tc := range cases {
		m := regexp.MustCompile(fmt.Sprintf(`max%d=(\S+)`, i)).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%v: no figure in mongosh output %q", tc.args, out)
		}
		got, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || got != tc.want {
			t.Errorf("%v: blockCacheMaxBytes = %q, want %d", tc.args, m[1], tc.want)
		}
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
