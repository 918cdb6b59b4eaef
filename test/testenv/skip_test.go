package testenv_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lodedb/lode/test/testenv"
)

// TestSkipRecorded: with mongosh hidden (LODE_HIDE_TOOLS), a test that
// requires it is skipped and recorded in LODE_SKIP_DIR, and the summary
// names the group, the package, the reason and how to enable it.
func TestSkipRecorded(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(testenv.SkipDirEnv, dir)
	t.Setenv(testenv.HideToolsEnv, "mongosh,pymongo")
	t.Setenv("LODE_REQUIRE_CLIENTS", "")
	ran := false
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			testenv.RequireTool(t, "mongosh")
			ran = true
		})
	}
	t.Run("py", func(t *testing.T) {
		testenv.RequirePymongo(t)
		ran = true
	})
	if ran {
		t.Fatal("a test requiring a hidden client ran")
	}
	if _, err := testenv.LookTool("mongosh"); err == nil {
		t.Error("LookTool found a hidden mongosh")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "skips-*.tsv"))
	if len(files) != 1 {
		t.Fatalf("skip files %v, want one for this process", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "\n"); got != 3 {
		t.Errorf("recorded %d skips, want 3:\n%s", got, data)
	}
	sum, err := testenv.SkipSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"skipped: 3 test(s), by group:",
		"  mongosh: 2 test(s); to run them: install mongosh (npm install -g mongosh) so that it is on the PATH\n    2 in test/testenv: mongosh not installed\n",
		"  pymongo: 1 test(s); to run them: install pymongo for /usr/bin/python3 (apt-get install python3-pymongo)\n    1 in test/testenv: pymongo not importable by /usr/bin/python3\n",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if s, err := testenv.SkipSummary(t.TempDir()); err != nil || s != "" {
		t.Errorf("summary of no skips: %q, %v", s, err)
	}
}
