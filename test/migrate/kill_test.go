package migrate_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lodedb/lode/test/testenv"
)

// TestMigrateSurvivesKills: kill -9 of lode migrate, of the source and
// of the target, one at a time, during the copy and during the
// catch-up, each followed by a restart, under the patterns' load; the
// migration still ends, after its cutover, in an exact copy with every
// acknowledged write once and the transfers' balances adding up. Six
// restarts take about 6 s, so it runs under LODE_ACCEPTANCE=1 (CI's run)
// only; the everyday run keeps the live cutover and the catch-up's resume.
func TestMigrateSurvivesKills(t *testing.T) {
	if !testenv.Acceptance() {
		testenv.Skip(t, testenv.GroupAcceptance, "six kill -9 restarts of a migration (about 6 s)")
	}
	t.Parallel()
	// The slow copy of 400,000 documents would take 100 s or more on a
	// loaded 2-core machine; it is finished at full speed after the last
	// kill in it (waitFor below still allows 3 minutes). The test's
	// context covers the whole run, to the final comparison.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	src, dst := startServer(t, "src"), startServer(t, "dst")
	sc, dc := src.client(t), dst.client(t)
	seedLoad(t, ctx, sc)
	seedItems(t, ctx, sc, testenv.Size(20000, 400000))
	// Journaled writes: the source's own kill -9 loses none acknowledged.
	l := startLoad(t, src.journaledClient(t), true)
	defer l.halt()
	// A slow copy (small batches, one writer) so that each kill lands in it.
	slow := []string{"--batch", "20", "--workers", "1", "--progress", "100ms"}

	// During the copy: lode migrate, then the target, then the source.
	m := startMigrate(t, src, dst, slow...)
	m.waitFor("copy: ", time.Minute)
	m.signal(syscall.SIGKILL)
	m.wait(10 * time.Second)
	if strings.Contains(m.out.String(), "copy done") {
		t.Fatalf("the copy ended before the kill:\n%s", m.out)
	}
	m = startMigrate(t, src, dst, slow...)
	m.waitFor("resuming the copy", 30*time.Second)
	waitMore(t, m, "copy: ")
	dst.restart()
	waitMore(t, m, "copy: ")
	src.restart()
	waitMore(t, m, "copy: ")
	if strings.Contains(m.out.String(), "copy done") {
		t.Fatalf("the copy ended before the last kill:\n%s", m.out)
	}
	// The rest of the copy at full speed: interrupted (Ctrl-C) and
	// resumed from its checkpoint without the slow settings, it ends in
	// seconds instead of copying the rest 20 documents at a time.
	m.stop()
	m = startMigrate(t, src, dst)
	m.waitFor("resuming the copy", 30*time.Second)
	m.waitFor("copy done", 3*time.Minute)

	// During the catch-up: the source, the target, then lode migrate.
	waitMore(t, m, "catch-up: ")
	src.restart()
	waitMore(t, m, "catch-up: ")
	dst.restart()
	waitMore(t, m, "catch-up: ")
	m.signal(syscall.SIGKILL)
	m.wait(10 * time.Second)
	m2 := startMigrate(t, src, dst)
	m2.waitFor("resuming the catch-up", 30*time.Second)
	waitMore(t, m2, "catch-up: ")
	m2.stop()

	c := startMigrate(t, src, dst, "--cutover")
	if err := c.wait(2 * time.Minute); err != nil {
		t.Fatalf("cutover: %v\n%s\n%s", err, m.out, c.out)
	}
	l.halt()
	if !strings.Contains(c.out.String(), "cutover: done") {
		t.Errorf("cutover output:\n%s", c.out)
	}
	if testing.Verbose() {
		t.Logf("migrate output:\n%s%s%s", m.out, m2.out, c.out)
	}
	sameData(t, ctx, sc, dc)
	l.checkConserved(t, ctx, dc)
}

// waitMore waits until the output has two more lines containing s than
// now (so one printed wholly after this call).
func waitMore(t *testing.T, m *migrator, s string) {
	t.Helper()
	n := len(m.lines(s))
	deadline := time.Now().Add(time.Minute)
	for len(m.lines(s)) < n+2 {
		select {
		case <-m.done:
			t.Fatalf("lode migrate ended (%v):\n%s", m.err, m.out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new %q line in a minute:\n%s", s, m.out)
		}
	}
}
