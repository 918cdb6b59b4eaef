// Package examples holds one runnable program per pattern in
// examples/<name>; this test builds and runs each of them.
package examples

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lodedb/lode/test/testenv"
)

// TestExamplesRun builds every examples/<name> program and runs it: each
// opens an embedded Lode in a temporary directory, so it needs no server.
// Each must exit 0 within a minute and print what its pattern shows.
// Linking seven programs takes about half a minute of CPU, so it runs
// under LODE_ACCEPTANCE=1 (as .ci/run sets); the everyday run checks each
// pattern's main use through its package's Example, and go vet compiles
// the programs.
func TestExamplesRun(t *testing.T) {
	if testing.Short() || os.Getenv("LODE_ACCEPTANCE") == "" {
		testenv.Skip(t, testenv.GroupAcceptance, "builds seven programs: set LODE_ACCEPTANCE=1 to run it")
	}
	want := map[string]string{
		"bucket":   "page 3: 5 trades",
		"eventlog": "line 4 skipped",
		"metadata": "found",
		"orders":   "total 185.33 (sum 185.33)",
		"queue":    "message: world",
		"recent":   "FindRecent: 1000 documents",
		"transfer": "interrupted: transfer: after step",
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
			if _, ok := want[e.Name()]; !ok {
				t.Errorf("examples/%s has no expected output in this test", e.Name())
			}
		}
	}
	if len(names) != len(want) {
		t.Errorf("found examples %v, want %d", names, len(want))
	}
	bin := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin+string(filepath.Separator), "./...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", err, out)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			rctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			cmd := exec.CommandContext(rctx, filepath.Join(bin, name))
			cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("examples/%s: %v\n%s", name, err, out)
			}
			if !strings.Contains(string(out), want[name]) {
				t.Fatalf("examples/%s output lacks %q:\n%s", name, want[name], out)
			}
			t.Logf("examples/%s:\n%s", name, out)
		})
	}
}
