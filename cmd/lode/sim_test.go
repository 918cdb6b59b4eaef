package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/internal/sim/report"
)

// TestSimCompareURI runs `lode sim run` with --uri and --compare-uri, two
// embedded Lode servers, and checks that both runs are reported side by
// side.
func TestSimCompareURI(t *testing.T) {
	var uris []string
	for range 2 {
		u, stop, err := sim.Embedded()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		uris = append(uris, u)
	}
	out := t.TempDir()
	err := runSim([]string{"run", "metadata", "--processes", "1", "--pool-size", "2", "--iterations", "2",
		"--resolution", "500", "--users", "10", "--param", "preload=50", "--quiet",
		"--uri", uris[0], "--compare-uri", uris[1], "--out", out})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep sim.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 2 {
		t.Fatalf("report has %d runs, want 2", len(rep.Runs))
	}
	// Each target is named by what it is and where, never by its URI's
	// options.
	var names []string
	for _, u := range uris {
		names = append(names, "Lode at "+strings.TrimSuffix(strings.TrimPrefix(u, "mongodb://"), "/?directConnection=true"))
	}
	for i, r := range rep.Runs {
		if r.Target != names[i] {
			t.Errorf("run %d target %q, want %q", i+1, r.Target, names[i])
		}
		if len(r.Scenarios) != 1 {
			t.Fatalf("run %d has %d scenarios", i+1, len(r.Scenarios))
		}
		s := r.Scenarios[0]
		if s.Started != 20 || s.Finished != 20 || s.Errors != 0 {
			t.Errorf("run %d: started %d finished %d errors %d, want 20/20/0", i+1, s.Started, s.Finished, s.Errors)
		}
	}
	table, err := os.ReadFile(filepath.Join(out, report.TableFile))
	if err != nil {
		t.Fatal(err)
	}
	// The verdict comes first: both runs of 20 operations kept up. The
	// schedule is 500 ms an iteration: at 200 ms a run fell behind once
	// (a 215 ms scheduler lag while other packages' tests ran beside it).
	for i, line := range strings.SplitN(string(table), "\n", 5)[:4] {
		if i%2 == 0 && !strings.HasPrefix(line, "Verdict, target "+strconv.Itoa(i/2+1)+" ("+names[i/2]+"): KEPT UP") {
			t.Errorf("report.txt line %d = %q, want target %d's verdict", i+1, line, i/2+1)
		}
	}
	for _, want := range []string{"Target 1: " + names[0], "Target 2: " + names[1]} {
		if !strings.Contains(string(table), want) {
			t.Errorf("report.txt lacks %q:\n%s", want, table)
		}
	}
	if !regexp.MustCompile(`(?m)^Statistics +Target 1 +Target 2$`).Match(table) {
		t.Errorf("report.txt has no side-by-side header:\n%s", table)
	}
	page, err := os.ReadFile(filepath.Join(out, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), "<h3>Target "); n < 2 {
		t.Errorf("report.html shows %d target chart sets, want both", n)
	}
}

// runAdvisedSim runs a short `lode sim run SCENARIO --advise` without the
// scenario's indexes against an embedded Lode and returns the report
// directory and report.txt.
func runAdvisedSim(t *testing.T, scenario string, preload int) (out string, table []byte) {
	t.Helper()
	u, stop, err := sim.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	out = t.TempDir()
	err = runSim([]string{"run", scenario, "--processes", "1", "--pool-size", "2", "--iterations", "2",
		"--resolution", "200", "--users", "5", "--param", "preload=" + strconv.Itoa(preload), "--param", "indexes=false", "--quiet",
		"--uri", u, "--out", out, "--advise"})
	if err != nil {
		t.Fatal(err)
	}
	table, err = os.ReadFile(filepath.Join(out, report.TableFile))
	if err != nil {
		t.Fatal(err)
	}
	return out, table
}

// TestSimAdvise runs `lode sim run --advise` on seed 002's scenario
// without its index: the report carries the advisor's table proposing the
// seed's index, and the data is still dropped afterwards.
func TestSimAdvise(t *testing.T) {
	out, table := runAdvisedSim(t, "metadata", 2000)
	for _, want := range []string{"Index advice for target 1", "sim.metadata", "{ metadata.key: 1, metadata.value: 1 }", "proposed indexes (1):"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("report.txt lacks %q:\n%s", want, table)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Runs []struct {
			Advice struct {
				Proposals []struct {
					Name string `json:"name"`
				} `json:"proposals"`
			} `json:"advice"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Advice.Proposals) != 1 || rep.Runs[0].Advice.Proposals[0].Name != "metadata.key_1_metadata.value_1" {
		t.Errorf("report.json advice: %+v", rep.Runs)
	}
	page, err := os.ReadFile(filepath.Join(out, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "Index advice") {
		t.Error("report.html has no index advice")
	}
}

// TestSimAdviseHostDay: seed 003's per-host range scenario without its
// indexes, advised: the proposal is {host: 1, time: 1} alone.
func TestSimAdviseHostDay(t *testing.T) {
	_, table := runAdvisedSim(t, "events_host_day", 3000)
	for _, want := range []string{"proposed indexes (1):", `db.getSiblingDB("sim").getCollection("events").createIndex({ host: 1, time: 1 })`} {
		if !strings.Contains(string(table), want) {
			t.Errorf("report.txt lacks %q:\n%s", want, table)
		}
	}
}

// TestSimDeadTarget: a run against a port nobody listens on fails within
// seconds, naming the host but not the URI's credentials.
func TestSimDeadTarget(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	start := time.Now()
	err = runSim([]string{"run", "metadata", "--quiet", "--iterations", "1", "--out", t.TempDir(),
		"--uri", "mongodb://user:secret@" + addr + "/?directConnection=true&serverSelectionTimeoutMS=60000&connectTimeoutMS=300"})
	took := time.Since(start)
	if err == nil {
		t.Fatal("a run against a dead port succeeded")
	}
	if took > 5*time.Second {
		t.Errorf("it took %v to give up", took)
	}
	if msg := err.Error(); !strings.Contains(msg, "no server at "+addr+" answered within 300ms") || strings.Contains(msg, "secret") {
		t.Errorf("error %q", msg)
	}
}
