package main

import (
	"os"
	"testing"
)

// TestHelpIsNotAnError: --help on every command ends without an error
// (main exits 0 for flag.ErrHelp), where it used to exit 1 with "flag:
// help requested".
func TestHelpIsNotAnError(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	stderr, stdout := os.Stderr, os.Stdout
	os.Stderr, os.Stdout = devnull, devnull
	defer func() { os.Stderr, os.Stdout = stderr, stdout }()
	for _, args := range [][]string{
		{"serve", "--help"}, {"sim", "run", "--help"}, {"eventlog", "import", "--help"},
		{"bench", "--help"}, {"advise", "--help"}, {"migrate", "--help"}, {"bench", "recent", "--help"}, {"--help"}, {"version"},
	} {
		if code := run(args); code != 0 {
			os.Stderr = stderr
			t.Errorf("lode %v exits %d, want 0", args, code)
			os.Stderr = devnull
		}
	}
	if code := run([]string{"nosuchcommand"}); code != 2 {
		t.Errorf("an unknown command exits %d, want 2", code)
	}
}
