package sim

import (
	"strings"
	"testing"
)

// fellBehind is the run issue 35 describes: a metadata search without
// its index, 25 iterations of 1000 operations a second, that took 87 s
// with 15,674 errors and a backlog of 20,688.
func fellBehind() *Result {
	return &Result{
		Spec: Spec{Name: "metadata", Iterations: 25, Resolution: 1000, Strategy: StrategySlicetime},
		Scenarios: []ScenarioResult{{
			Scenario: "metadata", Users: 1000, Started: 25000, Finished: 25000, Errors: 15674,
			PeakBacklog: 20688, ErrorSamples: map[string]int64{"context deadline exceeded": 15000, "other": 674},
			Stats: Stats{RuntimeSec: 87, Count: 25000, P99: 60000},
		}},
	}
}

func keptUp() *Result {
	return &Result{
		Spec: Spec{Name: "queue", Iterations: 25, Resolution: 1000, Strategy: StrategySlicetime},
		Scenarios: []ScenarioResult{{
			Scenario: "publish", Users: 1000, Started: 25000, Finished: 25000, PeakBacklog: 11,
			Stats: Stats{RuntimeSec: 25.0, Count: 25000, P99: 4.96},
		}},
	}
}

func TestVerdictFellBehind(t *testing.T) {
	v := fellBehind().Verdict()
	if v.OK {
		t.Fatalf("verdict OK for a run 3.5 times over its schedule: %+v", v)
	}
	if want := "DID NOT KEEP UP: metadata: fell behind: ran 87.0 s for a 25.0 s schedule"; v.Summary != want {
		t.Errorf("summary %q, want %q", v.Summary, want)
	}
	all := strings.Join(v.Findings, "\n")
	for _, want := range []string{
		"backlog peaked at 20,688 operations",
		"15,674 errors of 25,000 operations (62.7%)",
		`most often: "context deadline exceeded" (x15,000)`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("findings lack %q:\n%s", want, all)
		}
	}
}

func TestVerdictKeptUp(t *testing.T) {
	r := keptUp()
	v := r.Verdict()
	if !v.OK || !strings.HasPrefix(v.Summary, "KEPT UP") || len(v.Findings) != 1 ||
		!strings.Contains(v.Findings[0], "publish: kept up (25.0 s for a 25.0 s schedule, backlog peak 11), no errors, p99 5.0 ms") {
		t.Errorf("verdict %+v", v)
	}
	// A p99 target it misses fails it; one it meets is stated.
	r.P99TargetMs = 2
	if v := r.Verdict(); v.OK || v.Summary != "DID NOT KEEP UP: publish: p99 5.0 ms is over the 2.0 ms target" {
		t.Errorf("with a 2 ms target: %+v", v)
	}
	r.P99TargetMs = 10
	if v := r.Verdict(); !v.OK || !strings.HasSuffix(v.Summary, "within the 10.0 ms p99 target") {
		t.Errorf("with a 10 ms target: %+v", v)
	}
	// Unfinished operations fail it, however fast the rest was.
	r.P99TargetMs = 0
	r.Scenarios[0].Backlog = 3
	if v := r.Verdict(); v.OK || !strings.Contains(v.Summary, "3 operations never finished") {
		t.Errorf("with a backlog left: %+v", v)
	}
}

func TestVerdictGeneratorLagIsANote(t *testing.T) {
	r := keptUp()
	r.Scenarios[0].MaxSchedulerLagMs = 400
	v := r.Verdict()
	if !v.OK || len(v.Findings) != 2 || !strings.Contains(v.Findings[1], "note: the load generator itself started operations up to 400 ms late") {
		t.Errorf("verdict %+v", v)
	}
}

func TestVerdictSubscribers(t *testing.T) {
	r := &Result{
		Spec: Spec{Iterations: 5, Resolution: 1000, Strategy: StrategySlicetime},
		Scenarios: []ScenarioResult{{
			Scenario: "watch", Users: 3,
			Subscriber: &SubscriberStats{Expected: 300, Delivered: 298, Missed: 2},
		}},
	}
	if v := r.Verdict(); v.OK || v.Summary != "DID NOT KEEP UP: watch: 2 of 300 events due were missed and 0 delivered twice" {
		t.Errorf("verdict %+v", v)
	}
	r.Scenarios[0].Subscriber.Missed = 0
	if v := r.Verdict(); !v.OK || v.Findings[0] != "watch: every event due was delivered once" {
		t.Errorf("verdict %+v", v)
	}
}
