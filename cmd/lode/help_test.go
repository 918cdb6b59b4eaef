package main

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
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
		{"eventlog", "--help"}, {"eventlog", "help"}, {"eventlog", "-h"},
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

// TestHelpSpellsFlagsAsTyped: `lode serve --help` and `lode help serve`
// print the same usage, with the flags as they are typed (--addr), not
// Go's "Usage of serve:" and -addr; every command's help exits 0.
func TestHelpSpellsFlagsAsTyped(t *testing.T) {
	capture := func(args ...string) (string, int) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr, stdout := os.Stderr, os.Stdout
		os.Stderr, os.Stdout = w, w
		code := run(args)
		os.Stderr, os.Stdout = stderr, stdout
		w.Close()
		out, _ := io.ReadAll(r)
		return string(out), code
	}
	direct, code := capture("serve", "--help")
	if code != 0 || !strings.HasPrefix(direct, "usage: lode serve [flags]") ||
		!strings.Contains(direct, "\n  --addr string\n") || strings.Contains(direct, "Usage of") || strings.Contains(direct, "\n  -addr") {
		t.Errorf("lode serve --help exits %d and prints:\n%.400s", code, direct)
	}
	if viaHelp, code := capture("help", "serve"); code != 0 || viaHelp != direct {
		t.Errorf("lode help serve exits %d and differs from lode serve --help:\n%.400s", code, viaHelp)
	}
	for _, cmd := range []string{"sim", "eventlog", "advise", "bench"} {
		if out, code := capture("help", cmd); code != 0 || !strings.HasPrefix(out, "usage:") {
			t.Errorf("lode help %s exits %d and prints:\n%.300s", cmd, code, out)
		}
	}
	if out, code := capture("help"); code != 0 || !strings.Contains(out, "lode help <command>") {
		t.Errorf("lode help exits %d and prints:\n%.300s", code, out)
	}
}

// TestServePortTakenCreatesNothing: `lode serve` on a port in use fails
// before it creates the data directory.
func TestServePortTakenCreatesNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := filepath.Join(t.TempDir(), "data")
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	stderr := os.Stderr
	os.Stderr = devnull
	code := run([]string{"serve", "--addr", ln.Addr().String(), "--dir", dir})
	os.Stderr = stderr
	if code == 0 {
		t.Fatal("serve on a port in use succeeded")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("serve on a port in use created its data directory (%v)", err)
	}
}
