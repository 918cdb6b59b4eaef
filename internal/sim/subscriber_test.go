package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/internal/sim/report"
)

// TestSubscriberSimulation runs publishers, FIFO consumers and two
// change-stream subscribers on one queue: every acknowledged publish
// reaches every subscriber once, each delivery is counted with its
// latency, and the report has the subscriber's rows.
func TestSubscriberSimulation(t *testing.T) {
	t.Parallel()
	uri := embedded(t)
	spec := sim.Spec{
		Name: "subs", Processes: 2, PoolSize: 4, Iterations: 2, Resolution: 300,
		Type: sim.TypeConstant, Strategy: sim.StrategySlicetime,
		Scenarios: []sim.ScenarioSpec{
			{Scenario: "publish_to_queues", Users: 40, Params: sim.Params{"collection": "subs_q"}},
			{Scenario: "fetch_from_queue_by_fifo", Users: 10, Params: sim.Params{"collection": "subs_q", "drop": false, "preload": 0}},
			{Scenario: "subscribe_to_queue_changes", Users: 2, Params: sim.Params{"collection": "subs_q"}},
		},
	}
	res, err := sim.Run(context.Background(), spec, uri, sim.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Scenarios[2]
	st := s.Subscriber
	if st == nil || res.Scenarios[0].Subscriber != nil {
		t.Fatalf("subscriber figures on the wrong scenarios: %+v / %+v", st, res.Scenarios[0].Subscriber)
	}
	if st.Subscribers != 2 || st.Published != 80 || st.Expected != 160 || st.Delivered != 160 || st.Missed != 0 || st.Duplicates != 0 {
		t.Fatalf("subscriber figures %+v, want 2 subscribers each receiving the 80 publishes once", st)
	}
	if s.Errors != 0 || s.Stats.Count != 160 || s.Finished != 160 || s.ServiceStats.Count != 160 {
		t.Fatalf("errors %d %v, deliveries counted %d/%d/%d, want 0 and 160", s.Errors, s.ErrorSamples, s.Stats.Count, s.Finished, s.ServiceStats.Count)
	}
	if s.Stats.Min <= 0 || s.Stats.P50 > s.Stats.P99 || s.Stats.P99 > s.Stats.Max || s.Stats.OpsPerSec <= 0 {
		t.Fatalf("inconsistent delivery latencies %+v", s.Stats)
	}
	if st.FromCommit.Count != 160 || st.FromCommit.P99 > s.Stats.Max+1 {
		t.Fatalf("latency from the commit's wall time %+v: want 160 events, within 1 ms of the stamp's maximum %v", st.FromCommit, s.Stats.Max)
	}
	if st.BeforeAck > st.Delivered {
		t.Fatalf("%d of %d deliveries before their ack", st.BeforeAck, st.Delivered)
	}
	// The latency from the stamp includes the insert, so it is never
	// below the latency from the acknowledgement.
	if s.Stats.Max < s.ServiceStats.Max {
		t.Fatalf("latency from the stamp (max %v) below that from the ack (max %v)", s.Stats.Max, s.ServiceStats.Max)
	}
	dir := t.TempDir()
	if err := report.WriteAll(dir, &sim.Report{Runs: []*sim.Result{res}}); err != nil {
		t.Fatal(err)
	}
	txt, err := os.ReadFile(filepath.Join(dir, report.TableFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"subscribe_to_queue_changes scenario results (2 subscribers)", "Events delivered per second", "Delivered / due", "160 / 160", "Latency from stamp, 99 percentile"} {
		if !strings.Contains(string(txt), want) {
			t.Errorf("report.txt lacks %q:\n%s", want, txt)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "Events delivered per second") {
		t.Error("report.html lacks the deliveries chart")
	}
}

var registerLossy sync.Once

// TestSubscriberMissed: a subscriber that receives nothing of what was
// published is waited for up to the drain time, then each message it
// missed counts as an error.
func TestSubscriberMissed(t *testing.T) {
	t.Parallel()
	registerLossy.Do(func() {
		sim.Register(&sim.Scenario{Name: "sim_test_lossy_subscriber", Seed: "test",
			Subscribe: func(context.Context, *mongo.Database, sim.Params) (sim.SubscribeLoop, error) {
				return func(ctx context.Context, _ func(sim.Delivery)) error {
					<-ctx.Done()
					return nil
				}, nil
			},
			Published: func(*mongo.Database, sim.Params) int64 { return 7 },
		})
	})
	uri := embedded(t)
	spec := sim.Spec{
		Name: "lossy", Processes: 1, PoolSize: 2, Iterations: 1, Resolution: 100,
		Scenarios: []sim.ScenarioSpec{{Scenario: "sim_test_lossy_subscriber", Users: 3, Params: sim.Params{"drain": 50}}},
	}
	res, err := sim.Run(context.Background(), spec, uri, sim.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Scenarios[0]
	if st := s.Subscriber; st.Expected != 21 || st.Delivered != 0 || st.Missed != 21 || s.Errors != 21 || st.DrainMs < 50 {
		t.Fatalf("lossy subscribers: %+v, errors %d, want 21 missed after a 50 ms drain", st, s.Errors)
	}
}
