package clients

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestServeHugePages: `lode serve` restarts itself once at startup, in
// the same process, with glibc's malloc tunables, which its startup line
// reports: one arena, and with --huge-pages=try, the default, huge page
// advice (--huge-pages=off leaves that out); tunables the operator set
// are kept.
func TestServeHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the tunables are glibc's, set only on Linux")
	}
	if os.Getenv("GLIBC_TUNABLES") != "" {
		t.Skip("GLIBC_TUNABLES is set in the test's environment")
	}
	tunables := regexp.MustCompile(`msg="lode started" .* hugePages=(\S+) glibcTunables=(\S*) component=`)
	startedWith := func(extra ...string) (hugePages, glibc string) {
		t.Helper()
		// The restart keeps the process: the harness stops the PID it
		// started.
		s := startServer(t, extra...)
		s.stop()
		m := tunables.FindStringSubmatch(s.logs.String())
		if m == nil {
			t.Fatalf("no startup line with hugePages and glibcTunables:\n%s", s.logs.String())
		}
		return m[1], strings.Trim(m[2], `"`)
	}

	hp, glibc := startedWith()
	if hp != "try" || glibc != "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1" {
		t.Errorf("default: hugePages=%s glibcTunables=%q, want try with both tunables", hp, glibc)
	}
	hp, glibc = startedWith("--huge-pages", "try")
	if hp != "try" || glibc != "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1" {
		t.Errorf("--huge-pages try: hugePages=%s glibcTunables=%q, want try with both tunables", hp, glibc)
	}
	hp, glibc = startedWith("--huge-pages", "off")
	if hp != "off" || glibc != "glibc.malloc.arena_max=1" {
		t.Errorf("--huge-pages off: hugePages=%s glibcTunables=%q, want off with one arena", hp, glibc)
	}

	// Other tunables the operator set are kept, ours added once (an
	// appended second GLIBC_TUNABLES entry made the server restart
	// itself forever).
	t.Setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1048576")
	if _, glibc = startedWith("--huge-pages", "try"); glibc != "glibc.malloc.trim_threshold=1048576:glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1" {
		t.Errorf("operator's other tunables: glibcTunables=%q, want them followed by ours", glibc)
	}

	// An operator's own setting of either tunable is kept as it is.
	t.Setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=4")
	if _, glibc = startedWith(); glibc != "glibc.malloc.arena_max=4" {
		t.Errorf("operator's tunables: glibcTunables=%q, want glibc.malloc.arena_max=4 unchanged", glibc)
	}
}

// TestServeHugePagesBadValue: --huge-pages takes try or off only.
func TestServeHugePagesBadValue(t *testing.T) {
	out, err := exec.Command(lodeBin, "serve", "--addr", "127.0.0.1:0", "--dir", t.TempDir(), "--huge-pages", "on").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `bad --huge-pages "on": want try or off`) {
		t.Errorf("--huge-pages on: %v\n%s", err, out)
	}
}
