package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lodedb/lode/internal/sim"
)

// row is one statistic of the table: a label and how to format it.
type row struct {
	label string
	value func(r *sim.Result, s *sim.ScenarioResult) string
}

func msCell(v float64) string { return fmt.Sprintf("%.3f milliseconds", v) }

var rows = []row{
	{"Runtime", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return fmt.Sprintf("%.3f seconds", s.Stats.RuntimeSec)
	}},
	{"Mean", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.Mean) }},
	{"Standard Deviation", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.StdDev) }},
	{"75 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.P75) }},
	{"95 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.P95) }},
	{"99 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.P99) }},
	{"Minimum", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.Min) }},
	{"Maximum", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.Max) }},
	{"Service time mean", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.ServiceStats.Mean) }},
	{"Service time 99 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.ServiceStats.P99) }},
	{"Operations per second", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return fmt.Sprintf("%.1f", s.Stats.OpsPerSec)
	}},
	{"Started / finished", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return fmt.Sprintf("%d / %d", s.Started, s.Finished)
	}},
	{"Errors", func(_ *sim.Result, s *sim.ScenarioResult) string { return fmt.Sprint(s.Errors) }},
	{"Backlog (end / peak)", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return fmt.Sprintf("%d / %d", s.Backlog, s.PeakBacklog)
	}},
	{"Scheduler lag (max)", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return msCell(s.MaxSchedulerLagMs)
	}},
}

// subscriberRows replace rows for a subscriber scenario, whose
// operations are deliveries.
var subscriberRows = []row{
	rows[0],
	{"Events delivered per second", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return fmt.Sprintf("%.1f", s.Stats.OpsPerSec)
	}},
	{"Delivered / due", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return fmt.Sprintf("%d / %d", s.Subscriber.Delivered, s.Subscriber.Expected)
	}},
	{"Missed / duplicates", func(_ *sim.Result, s *sim.ScenarioResult) string {
		return fmt.Sprintf("%d / %d", s.Subscriber.Missed, s.Subscriber.Duplicates)
	}},
	{"Latency from stamp, mean", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.Mean) }},
	{"Latency from stamp, 50 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.P50) }},
	{"Latency from stamp, 95 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.P95) }},
	{"Latency from stamp, 99 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.P99) }},
	{"Latency from stamp, maximum", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Stats.Max) }},
	{"Latency from ack, 50 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.ServiceStats.P50) }},
	{"Latency from ack, 99 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.ServiceStats.P99) }},
	{"Latency from commit wall time, 50 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Subscriber.FromCommit.P50) }},
	{"Latency from commit wall time, 99 percentile", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Subscriber.FromCommit.P99) }},
	{"Arrived before the ack", func(_ *sim.Result, s *sim.ScenarioResult) string {
		if s.Subscriber.Delivered == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%.1f%%)", s.Subscriber.BeforeAck, 100*float64(s.Subscriber.BeforeAck)/float64(s.Subscriber.Delivered))
	}},
	{"Drain after the load", func(_ *sim.Result, s *sim.ScenarioResult) string { return msCell(s.Subscriber.DrainMs) }},
	{"Errors", func(_ *sim.Result, s *sim.ScenarioResult) string { return fmt.Sprint(s.Errors) }},
}

// SubscriberNote says what a subscriber scenario's figures measure.
const SubscriberNote = "each delivery is counted once per subscriber; latency from stamp runs from the publisher's clock just before its insert " +
	"to the event's arrival (an upper bound on the latency from the commit), latency from ack from the publisher's acknowledgement " +
	"(0 for an event that arrived first), latency from commit wall time from the event's wallTime, the server's clock when it logged the insert " +
	"(millisecond precision, truncated: up to 1 ms too long; meaningful when the server shares the subscriber's clock)"

// rowsFor returns the table rows of scenario si of rep.
func rowsFor(rep *sim.Report, si int) []row {
	for _, r := range rep.Runs {
		if si < len(r.Scenarios) && r.Scenarios[si].Subscriber != nil {
			return subscriberRows
		}
	}
	return rows
}

// heading is a scenario's section title.
func heading(ss *sim.ScenarioResult) string {
	if ss.Subscriber != nil {
		return fmt.Sprintf("%s scenario results (%d subscribers)", ss.Scenario, ss.Users)
	}
	return fmt.Sprintf("%s scenario results (%d users per iteration)", ss.Scenario, ss.Users)
}

// Describe returns a one-line description of a spec's load model.
func Describe(sp *sim.Spec) string {
	return fmt.Sprintf("%d processes x pool %d, %d iterations x %d ms, %s, %s",
		sp.Processes, sp.PoolSize, sp.Iterations, sp.Resolution, sp.Type, sp.Strategy)
}

// WriteTable prints the seeds' statistics table for every scenario, one
// column per target.
func WriteTable(w io.Writer, rep *sim.Report) error {
	if len(rep.Runs) == 0 {
		return nil
	}
	first := rep.Runs[0]
	for i, r := range rep.Runs {
		v := r.Verdict()
		fmt.Fprintf(w, "Verdict, target %d (%s): %s\n", i+1, r.Target, v.Summary)
		for _, f := range v.Findings {
			fmt.Fprintf(w, "  - %s\n", f)
		}
	}
	fmt.Fprintf(w, "\nSimulation %s: %s\n", first.Spec.Name, Describe(&first.Spec))
	for i, r := range rep.Runs {
		fmt.Fprintf(w, "Target %d: %s (server %s), total runtime %.3f s\n", i+1, r.Target, r.Server, r.RuntimeSec)
	}
	for si, ss := range first.Scenarios {
		fmt.Fprintf(w, "\n%s\n", heading(&ss))
		tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
		hdr := []string{"Statistics"}
		for i := range rep.Runs {
			if len(rep.Runs) == 1 {
				hdr = append(hdr, "Value")
			} else {
				hdr = append(hdr, fmt.Sprintf("Target %d", i+1))
			}
		}
		fmt.Fprintln(tw, strings.Join(hdr, "\t"))
		for _, rw := range rowsFor(rep, si) {
			cells := []string{rw.label}
			for _, r := range rep.Runs {
				if si < len(r.Scenarios) && (r.Scenarios[si].Subscriber != nil) == (ss.Subscriber != nil) {
					cells = append(cells, rw.value(r, &r.Scenarios[si]))
				} else {
					cells = append(cells, "-")
				}
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range rep.Runs {
			if si < len(r.Scenarios) {
				for msg, n := range r.Scenarios[si].ErrorSamples {
					fmt.Fprintf(w, "  error x%d on %s: %s\n", n, r.Target, msg)
				}
			}
		}
	}
	for i, r := range rep.Runs {
		if r.Advice != "" {
			fmt.Fprintf(w, "\nIndex advice for target %d (%s):\n%s", i+1, r.Target, r.Advice)
		}
	}
	fmt.Fprintf(w, "\nCounting: %s.\n", first.Counting)
	if first.Latency != "" {
		fmt.Fprintf(w, "Latency: %s.\n", first.Latency)
	}
	for _, ss := range first.Scenarios {
		if ss.Subscriber != nil {
			fmt.Fprintf(w, "Subscribers: %s.\n", SubscriberNote)
			break
		}
	}
	return nil
}
