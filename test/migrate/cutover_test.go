package migrate_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lodedb/lode/test/testenv"
)

var lagRE = regexp.MustCompile(`lag (\d+)s`)

// TestMigrateLiveCutover: a source under the patterns' write load is
// copied and followed live, then cut over: the source refuses writes,
// the last changes are applied and verified; the target holds exactly
// the source's documents and indexes, every acknowledged write once, and
// the transfers' balances add up.
func TestMigrateLiveCutover(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	src, dst := startServer(t, "src"), startServer(t, "dst")
	sc, dc := src.client(t), dst.client(t)
	seedLoad(t, ctx, sc)
	seedItems(t, ctx, sc, testenv.Size(10000, 200000))
	l := startLoad(t, sc, false)
	defer l.halt()
	time.Sleep(300 * time.Millisecond) // the load runs before, during and after the copy

	m := startMigrate(t, src, dst)
	m.waitFor("copy done", 2*time.Minute)
	follow := time.Duration(testenv.Size(1, 20)) * time.Second
	time.Sleep(follow)
	m.stop()

	c := startMigrate(t, src, dst, "--cutover")
	if err := c.wait(2 * time.Minute); err != nil {
		t.Fatalf("cutover: %v\n%s", err, c.out)
	}
	l.halt()
	out := m.out.String() + c.out.String()
	for _, want := range []string{"blocking writes on the source", "namespace(s) identical", "cutover: done", "change the connection string to the target"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if l.blocked.Load() == 0 {
		t.Error("no writer met UserWritesBlocked")
	}
	// The catch-up starts from the copy's start, so its first lag is the
	// copy's length (10 s and more on a loaded machine). Keeping up is
	// draining that backlog (a lag of at most 1 s) and staying within
	// 5 s of the load from then on.
	caughtUp, maxLag := false, 0
	for _, m := range lagRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		if !caughtUp {
			caughtUp = n <= 1
			continue
		}
		maxLag = max(maxLag, n)
	}
	if !caughtUp {
		t.Errorf("the catch-up never came within 1 s of the load:\n%s", out)
	}
	if maxLag > 5 {
		t.Errorf("the catch-up fell %ds behind the load after catching up", maxLag)
	}
	if testing.Verbose() {
		t.Logf("migrate output:\n%s", out)
	}
	sameData(t, ctx, sc, dc)
	l.checkConserved(t, ctx, dc)
}
