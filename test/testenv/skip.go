package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Skipped tests are recorded, so that the test command can say what did
// not run and how to run it: every skip for a missing client, tool or
// setting goes through Skip, which appends the test, its group, the
// reason and how to enable the group to a file in the directory named by
// LODE_SKIP_DIR (scripts/test.sh sets it to a temporary directory and
// prints SkipSummary at the end; go test alone records nothing).
//
// LODE_HIDE_TOOLS (a comma-separated list of names) makes LookTool and
// RequireTool report those tools missing, to see the skips on a machine
// that has them.

// Skip groups, with how to enable each.
const (
	GroupMongosh     = "mongosh"
	GroupNode        = "node"
	GroupNodeDriver  = "Node driver"
	GroupPymongo     = "pymongo"
	GroupTools       = "database tools"
	GroupAcceptance  = "acceptance"
	GroupConformance = "conformance"
	GroupProc        = "/proc"
	GroupTmpfs       = "tmpfs mount"
	GroupChromium    = "chromium"
)

// enableHints says how to enable each group.
var enableHints = map[string]string{
	GroupMongosh:     "install mongosh (npm install -g mongosh) so that it is on the PATH",
	GroupNode:        "install Node.js so that node is on the PATH",
	GroupNodeDriver:  "run npm ci in test/clients/node",
	GroupPymongo:     "install pymongo for /usr/bin/python3 (apt-get install python3-pymongo)",
	GroupTools:       "put MongoDB's database tools (mongodump, mongorestore, ...) in ../shared/tools or set LODE_TOOLS_DIR",
	GroupAcceptance:  "set LODE_ACCEPTANCE=1 (minutes; .ci/run does)",
	GroupConformance: "set LODE_ACCEPTANCE=1 or LODE_CONFORMANCE=1",
	GroupProc:        "run on Linux (the test reads /proc)",
	GroupTmpfs:       "run as root where tmpfs can be mounted",
	GroupChromium:    "install Debian's chromium package (apt-get install chromium)",
}

// SkipDirEnv names the directory Skip records in.
const SkipDirEnv = "LODE_SKIP_DIR"

// HideToolsEnv lists the tools LookTool reports missing.
const HideToolsEnv = "LODE_HIDE_TOOLS"

// Skip records t as skipped in group for reason (when LODE_SKIP_DIR is
// set) and skips it.
func Skip(t testing.TB, group, reason string) {
	t.Helper()
	if err := recordSkip(t.Name(), group, reason); err != nil {
		t.Logf("cannot record the skip: %v", err)
	}
	t.Skip(reason)
}

// recordSkip appends one line to this process's file in LODE_SKIP_DIR:
// package, test, group and reason, tab-separated.
func recordSkip(test, group, reason string) error {
	dir := os.Getenv(SkipDirEnv)
	if dir == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("skips-%d.tsv", os.Getpid())), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	clean := strings.NewReplacer("\t", " ", "\n", " ").Replace
	_, err = fmt.Fprintf(f, "%s\t%s\t%s\t%s\n", clean(packageDir()), clean(test), clean(group), clean(reason))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// packageDir is the test's package directory relative to the module
// root (go test runs a test in its package's directory).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for d := wd; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			rel, err := filepath.Rel(d, wd)
			if err != nil {
				return wd
			}
			return filepath.ToSlash(rel)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return wd
		}
		d = parent
	}
}

// Hidden reports whether LODE_HIDE_TOOLS lists name (a command, or
// "pymongo", "node-driver", "mongodump", ...).
func Hidden(name string) bool {
	for _, h := range strings.Split(os.Getenv(HideToolsEnv), ",") {
		if strings.TrimSpace(h) == name {
			return true
		}
	}
	return false
}

// LookTool is exec.LookPath, except for the tools LODE_HIDE_TOOLS lists.
func LookTool(name string) (string, error) {
	if Hidden(name) {
		return "", fmt.Errorf("%s hidden by %s", name, HideToolsEnv)
	}
	return exec.LookPath(name)
}

// Pymongo is the Python that the pymongo tests run: Debian's, with its
// python3-pymongo (3.11).
const Pymongo = "/usr/bin/python3"

// RequirePymongo returns Pymongo when it imports pymongo, and skips t in
// the pymongo group otherwise (fails it under LODE_REQUIRE_CLIENTS=1).
func RequirePymongo(t testing.TB) string {
	t.Helper()
	err := exec.Command(Pymongo, "-c", "import pymongo").Run()
	if err == nil && Hidden("pymongo") {
		err = fmt.Errorf("pymongo hidden by %s", HideToolsEnv)
	}
	if err != nil {
		MissingClient(t, GroupPymongo, "pymongo not importable by "+Pymongo, err)
	}
	return Pymongo
}

// RequireClients reports whether a missing client fails a test instead
// of skipping it (LODE_REQUIRE_CLIENTS=1, as in .ci/run).
func RequireClients() bool { return os.Getenv("LODE_REQUIRE_CLIENTS") == "1" }

// RequireTool returns the path of the client name (mongosh, node, ...),
// skipping t in the group of that name when it is missing, or failing
// it under LODE_REQUIRE_CLIENTS=1.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := LookTool(name)
	if err != nil {
		MissingClient(t, name, fmt.Sprintf("%s not installed", name), err)
	}
	return p
}

// MissingClient fails t under LODE_REQUIRE_CLIENTS=1 and otherwise
// skips it in group for reason.
func MissingClient(t testing.TB, group, reason string, err error) {
	t.Helper()
	if RequireClients() {
		t.Fatalf("%s is required (LODE_REQUIRE_CLIENTS=1): %s: %v", group, reason, err)
	}
	Skip(t, group, reason)
}

// SkipSummary reads the skips recorded in dir and describes them: per
// group, how many tests and how to enable them, then per reason how
// many tests in which packages. It returns "" when nothing was skipped.
func SkipSummary(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "skips-*.tsv"))
	if err != nil {
		return "", err
	}
	type key struct{ group, reason string }
	type entry struct {
		tests int
		pkgs  map[string]bool
	}
	groups := map[key]*entry{}
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			parts := strings.Split(line, "\t")
			if len(parts) != 4 {
				continue
			}
			k := key{parts[2], parts[3]}
			e := groups[k]
			if e == nil {
				e = &entry{pkgs: map[string]bool{}}
				groups[k] = e
			}
			e.tests++
			e.pkgs[parts[0]] = true
			total++
		}
	}
	if total == 0 {
		return "", nil
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].group != keys[j].group {
			return keys[i].group < keys[j].group
		}
		return keys[i].reason < keys[j].reason
	})
	var b strings.Builder
	fmt.Fprintf(&b, "skipped: %d test(s), by group:\n", total)
	for i, k := range keys {
		if i == 0 || keys[i-1].group != k.group {
			n := 0
			for _, k2 := range keys {
				if k2.group == k.group {
					n += groups[k2].tests
				}
			}
			fmt.Fprintf(&b, "  %s: %d test(s)", k.group, n)
			if h := enableHints[k.group]; h != "" {
				fmt.Fprintf(&b, "; to run them: %s", h)
			}
			b.WriteByte('\n')
		}
		e := groups[k]
		pkgs := make([]string, 0, len(e.pkgs))
		for p := range e.pkgs {
			pkgs = append(pkgs, p)
		}
		sort.Strings(pkgs)
		fmt.Fprintf(&b, "    %d in %s: %s\n", e.tests, strings.Join(pkgs, ", "), k.reason)
	}
	return b.String(), nil
}
