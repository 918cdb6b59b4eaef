package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/internal/sim/report"
	_ "github.com/lodedb/lode/internal/sim/scenarios"
)

func embedded(t *testing.T) string {
	t.Helper()
	uri, stop, err := sim.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return uri
}

// TestTinySimulation runs two scenarios at once for two iterations and
// checks that every started operation finished and was counted, and that
// the report files are written.
func TestTinySimulation(t *testing.T) {
	t.Parallel()
	uri := embedded(t)
	spec := sim.Spec{
		Name: "tiny", Processes: 2, PoolSize: 4, Iterations: 2, Resolution: 300,
		Type: sim.TypeConstant, Strategy: sim.StrategySlicetime,
		Scenarios: []sim.ScenarioSpec{
			{Scenario: "metadata", Users: 30, Params: sim.Params{"preload": 200}},
			{Scenario: "publish_to_queues", Users: 20, Params: sim.Params{"collection": "q"}},
			{Scenario: "fetch_from_queue_by_fifo", Users: 10, Params: sim.Params{"collection": "q", "drop": false, "preload": 0}},
		},
	}
	res, err := sim.Run(context.Background(), spec, uri, sim.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Scenarios {
		want := int64(s.Users * spec.Iterations)
		if s.Started != want || s.Finished != want || s.Stats.Count != want || s.Backlog != 0 {
			t.Errorf("%s: started %d finished %d histogram %d backlog %d, want %d/%d/%d/0",
				s.Scenario, s.Started, s.Finished, s.Stats.Count, s.Backlog, want, want, want)
		}
		var tl int64
		for _, w := range s.Timeline {
			tl += w.Finished
		}
		if tl != want {
			t.Errorf("%s: timeline counts %d finished, want %d", s.Scenario, tl, want)
		}
		if s.Errors != 0 {
			t.Errorf("%s: %d errors: %v", s.Scenario, s.Errors, s.ErrorSamples)
		}
		if s.Stats.Min <= 0 || s.Stats.Max < s.Stats.P99 || s.Stats.P99 < s.Stats.P75 {
			t.Errorf("%s: inconsistent stats %+v", s.Scenario, s.Stats)
		}
	}
	if res.RuntimeSec < 0.6*0.9 {
		t.Errorf("runtime %.3f s shorter than the 0.6 s schedule", res.RuntimeSec)
	}
	dir := t.TempDir()
	rep := &sim.Report{Runs: []*sim.Result{res}}
	if err := report.WriteAll(dir, rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{report.JSONFile, report.HTMLFile, report.TableFile} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	var back sim.Report
	data, _ := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err := json.Unmarshal(data, &back); err != nil || len(back.Runs) != 1 || len(back.Runs[0].Scenarios) != 3 {
		t.Errorf("report.json does not round-trip: %v", err)
	}
	// Latency (from the scheduled start) and service time (from the actual
	// start) are both recorded; an operation's latency is never below its
	// service time, so neither is any quantile.
	for _, s := range res.Scenarios {
		l, v := s.Stats, s.ServiceStats
		if v.Count != l.Count || s.ServiceHDR == "" || len(s.ServiceHistogram) == 0 {
			t.Errorf("%s: service time not recorded: %+v", s.Scenario, v)
		}
		if l.Min < v.Min || l.P75 < v.P75 || l.P99 < v.P99 || l.Max < v.Max || l.Mean < v.Mean {
			t.Errorf("%s: latency %+v below service time %+v", s.Scenario, l, v)
		}
	}
	if !strings.Contains(res.Latency, "scheduled start") {
		t.Errorf("result does not say latency is from the scheduled start: %q", res.Latency)
	}
	// serverStatus is sampled from second 0 on.
	if len(res.ServerStatus) == 0 || res.ServerStatus[0].Second < 0 || res.ServerStatus[0].Second > 0.2 {
		t.Errorf("first serverStatus sample %+v, want at second 0", res.ServerStatus)
	}
	for i := 1; i < len(res.ServerStatus); i++ {
		if res.ServerStatus[i].Second <= res.ServerStatus[i-1].Second {
			t.Errorf("serverStatus samples out of order: %+v", res.ServerStatus)
		}
	}
	checkHTML(t, filepath.Join(dir, report.HTMLFile), res)
}

var (
	svgRe   = regexp.MustCompile(`(?s)<svg[^>]*>.*?</svg>`)
	titleRe = regexp.MustCompile(`class="title">([^<]*)</text>`)
	// Anything that would make the page fetch something when opened.
	fetchRe = regexp.MustCompile(`(?i)<script|\bsrc\s*=|href\s*=\s*["']?https?:|url\(|@import|<link|<iframe|<img`)
)

// checkHTML checks that report.html holds one inline <svg> per chart and
// nothing that is fetched at view time.
func checkHTML(t *testing.T, path string, res *sim.Result) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if m := fetchRe.FindString(page); m != "" {
		t.Errorf("report.html references an external resource or script: %q", m)
	}
	want := map[string]int{
		"serverStatus opcounters per second": 1,
		"serverStatus connections.current":   1,
	}
	for _, s := range res.Scenarios {
		want["Operations per second"]++
		want["Backlog (started, not finished)"]++
		want["Latency percentiles per second"]++
		want[fmt.Sprintf("Latency histogram (%d ops)", s.Stats.Count)]++
		want[fmt.Sprintf("Service time histogram (%d ops)", s.ServiceStats.Count)]++
	}
	got := map[string]int{}
	svgs := svgRe.FindAllString(page, -1)
	for _, svg := range svgs {
		m := titleRe.FindStringSubmatch(svg)
		if m == nil {
			t.Errorf("an <svg> without a title: %.200s", svg)
			continue
		}
		got[html.UnescapeString(m[1])]++
	}
	if n := strings.Count(page, "<svg"); n != len(svgs) {
		t.Errorf("%d <svg> openings but %d complete charts", n, len(svgs))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("charts in report.html:\n got  %v\n want %v", got, want)
	}
	for _, s := range res.Scenarios {
		if !strings.Contains(page, s.Scenario+" scenario results") {
			t.Errorf("report.html has no section for %s", s.Scenario)
		}
	}
}

// inflight backs a test scenario whose operation sleeps and records how
// many operations are in flight at each start.
type inflight struct {
	mu      sync.Mutex
	n       int
	samples []sample
}

type sample struct {
	at time.Time
	n  int
}

func (f *inflight) op(d time.Duration) sim.Op {
	return func(ctx context.Context) error {
		f.mu.Lock()
		f.n++
		f.samples = append(f.samples, sample{time.Now(), f.n})
		f.mu.Unlock()
		time.Sleep(d)
		f.mu.Lock()
		f.n--
		f.mu.Unlock()
		return nil
	}
}

var (
	registerOnce sync.Once
	sleepers     = map[string]*inflight{"sim_test_sleep_closed": {}, "sim_test_sleep_ramp": {}}
)

// registerSleepers registers the sleeping scenarios (once) and clears
// the samples of the one named, which only its test runs.
func registerSleepers(name string) {
	f := sleepers[name]
	f.mu.Lock()
	f.samples = nil
	f.mu.Unlock()
	registerOnce.Do(func() {
		for name, f := range sleepers {
			sim.Register(&sim.Scenario{Name: name, Seed: "test", Bind: func(context.Context, *mongo.Database, sim.Params) (sim.Op, error) {
				return f.op(20 * time.Millisecond), nil
			}})
		}
	})
}

// TestClosedRun: the closed strategy keeps Users workers busy back to
// back for iterations x resolution; every operation is counted.
func TestClosedRun(t *testing.T) {
	t.Parallel()
	registerSleepers("sim_test_sleep_closed")
	uri := embedded(t)
	spec := sim.Spec{
		Name: "closed", Processes: 2, PoolSize: 2, Iterations: 2, Resolution: 300,
		Type: sim.TypeConstant, Strategy: sim.StrategyClosed,
		Scenarios: []sim.ScenarioSpec{
			{Scenario: "sim_test_sleep_closed", Users: 3},
			{Scenario: "metadata", Users: 2, Params: sim.Params{"preload": 100}},
		},
	}
	res, err := sim.Run(context.Background(), spec, uri, sim.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Scenarios {
		if s.Started != s.Finished || s.Backlog != 0 || s.Errors != 0 || s.Stats.Count != s.Finished {
			t.Errorf("%s: started %d finished %d backlog %d errors %d (%v) histogram %d",
				s.Scenario, s.Started, s.Finished, s.Backlog, s.Errors, s.ErrorSamples, s.Stats.Count)
		}
		if s.Stats != s.ServiceStats {
			t.Errorf("%s: closed latency %+v differs from service time %+v", s.Scenario, s.Stats, s.ServiceStats)
		}
	}
	// 3 sleepers of 20 ms for 0.6 s: about 90 operations, never more, and
	// never more than 3 at once. Back to back means as many as 3 workers
	// fit in 0.6 s at the operations' measured mean (a loaded machine
	// oversleeps), less a slack for the first and last.
	sl := res.Scenarios[0]
	backToBack := 3 * 600 / max(sl.Stats.Mean, 20)
	if float64(sl.Finished) < 0.7*backToBack || sl.Finished > 93 {
		t.Errorf("closed sleepers finished %d operations of %.1f ms on average, want about %.0f (90 on an idle machine)",
			sl.Finished, sl.Stats.Mean, backToBack)
	}
	f := sleepers["sim_test_sleep_closed"]
	for _, smp := range f.samples {
		if smp.n > 3 {
			t.Fatalf("%d operations in flight with 3 closed workers", smp.n)
		}
	}
	if res.RuntimeSec < 0.6 || res.RuntimeSec > 3 {
		t.Errorf("closed run took %.3f s, want about 0.6", res.RuntimeSec)
	}
}

// TestRampRun: with type ramp, the closed strategy adds workers each
// iteration (users*(i+1)/iterations), and slicetime starts that many
// operations per iteration.
func TestRampRun(t *testing.T) {
	t.Parallel()
	registerSleepers("sim_test_sleep_ramp")
	uri := embedded(t)
	spec := sim.Spec{
		Name: "ramp", Processes: 2, PoolSize: 2, Iterations: 3, Resolution: 400,
		Type: sim.TypeRamp, Strategy: sim.StrategyClosed,
		Scenarios: []sim.ScenarioSpec{{Scenario: "sim_test_sleep_ramp", Users: 6}},
	}
	res, err := sim.Run(context.Background(), spec, uri, sim.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := sleepers["sim_test_sleep_ramp"]
	peak := make([]int, spec.Iterations)
	win := time.Duration(spec.Resolution) * time.Millisecond
	for _, smp := range f.samples {
		i := int(smp.at.Sub(res.StartedAt) / win)
		if i >= 0 && i < len(peak) {
			peak[i] = max(peak[i], smp.n)
		}
	}
	if want := []int{2, 4, 6}; fmt.Sprint(peak) != fmt.Sprint(want) {
		t.Errorf("closed ramp: peak operations in flight per iteration %v, want %v", peak, want)
	}
	s := res.Scenarios[0]
	if s.Started != s.Finished || s.Errors != 0 {
		t.Errorf("closed ramp: started %d finished %d errors %d", s.Started, s.Finished, s.Errors)
	}

	spec.Strategy = sim.StrategySlicetime
	spec.Resolution = 200
	spec.Scenarios = []sim.ScenarioSpec{{Scenario: "metadata", Users: 30, Params: sim.Params{"preload": 100}}}
	res, err = sim.Run(context.Background(), spec, uri, sim.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s = res.Scenarios[0]
	if s.Started != 10+20+30 || s.Finished != s.Started || s.Errors != 0 {
		t.Errorf("slicetime ramp: started %d finished %d errors %d, want 60 (10+20+30)", s.Started, s.Finished, s.Errors)
	}
}

// TestScenarios runs every built-in scenario briefly and expects no
// errors.
func TestScenarios(t *testing.T) {
	t.Parallel()
	for _, sc := range sim.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			if strings.HasPrefix(sc.Name, "sim_test_") {
				// Not built in: a test's own scenario, which its test
				// runs (the sleepers count what is in flight; the lossy
				// subscriber loses messages on purpose).
				t.Skip("a test's own scenario")
			}
			// Each scenario on its own server, all at once: the
			// subscribers' runs publish into the same collection.
			t.Parallel()
			uri := embedded(t)
			spec := sim.Spec{
				Name: sc.Name, Processes: 2, PoolSize: 4, Iterations: 1, Resolution: 200,
				Scenarios: []sim.ScenarioSpec{{Scenario: sc.Name, Users: 10, Params: sim.Params{"preload": 300, "pages": 3, "accounts": 10}}},
			}
			want := int64(10)
			if sc.Subscribe == nil {
				// The ten operations' starts spread over a 50 ms window:
				// every one must still finish without error; the window's
				// length is not what this checks.
				spec.Resolution = 50
			} else { // two subscribers to ten publishes, in 200 ms
				spec.Scenarios = []sim.ScenarioSpec{
					{Scenario: "publish_to_queues", Users: 10, Params: sim.Params{"collection": "watched_" + sc.Name}},
					{Scenario: sc.Name, Users: 2, Params: sim.Params{"collection": "watched_" + sc.Name}},
				}
				want = 20
			}
			res, err := sim.Run(context.Background(), spec, uri, sim.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Scenarios[len(res.Scenarios)-1]
			if s.Finished != want || s.Errors != 0 {
				t.Errorf("finished %d errors %d %v", s.Finished, s.Errors, s.ErrorSamples)
			}
		})
	}
}
