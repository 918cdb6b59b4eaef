package sim_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/lodedb/lode/sim"
	"github.com/lodedb/lode/sim/report"
	_ "github.com/lodedb/lode/sim/scenarios"
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
}

// TestScenarios runs every built-in scenario briefly and expects no
// errors.
func TestScenarios(t *testing.T) {
	uri := embedded(t)
	for _, sc := range sim.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			spec := sim.Spec{
				Name: sc.Name, Processes: 2, PoolSize: 4, Iterations: 1, Resolution: 200,
				Scenarios: []sim.ScenarioSpec{{Scenario: sc.Name, Users: 10, Params: sim.Params{"preload": 300, "pages": 3, "accounts": 10}}},
			}
			res, err := sim.Run(context.Background(), spec, uri, sim.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Scenarios[0]
			if s.Finished != 10 || s.Errors != 0 {
				t.Errorf("finished %d errors %d %v", s.Finished, s.Errors, s.ErrorSamples)
			}
		})
	}
}
