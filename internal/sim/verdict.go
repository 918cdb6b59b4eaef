package sim

import (
	"fmt"
	"sort"
	"strings"
)

// Verdict is a run's answer to the question a simulation asks: did the
// target keep up with the load, without errors, within the latency
// target? The report prints it first.
type Verdict struct {
	// OK is set when every scenario kept up, nothing failed and every
	// p99 met the target (when one was given).
	OK bool
	// Summary is one line: the outcome and the worst finding.
	Summary string
	// Findings are the details, one per scenario and problem, worst
	// first within a scenario; a run that kept up has one line per
	// scenario saying so.
	Findings []string
}

// Fell-behind thresholds. A slicetime run keeps up when it ends within
// scheduleSlack of its schedule (plus a second for the last operations'
// latency), finishes everything it started, and never has more than
// one iteration's operations outstanding. The generator's own lag is
// noted (it does not fail the run: it is the client's machine, not the
// target) when it exceeds a tenth of a window and lagFloorMs.
const (
	scheduleSlack = 1.10
	lagShare      = 0.10
	lagFloorMs    = 50
)

// Verdict judges r, holding each scenario's 99th percentile to
// r.P99TargetMs when that is positive.
func (r *Result) Verdict() Verdict {
	v := Verdict{OK: true}
	target := r.P99TargetMs
	var worst, notes []string
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		var bad []string
		if s.Subscriber != nil {
			sub := s.Subscriber
			if sub.Missed > 0 || sub.Duplicates > 0 {
				bad = append(bad, fmt.Sprintf("%s of %s events due were missed and %s delivered twice",
					count(sub.Missed), count(sub.Expected), count(sub.Duplicates)))
			}
		} else if r.Spec.Strategy != StrategyClosed {
			sched := float64(r.Spec.Iterations*r.Spec.Resolution) / 1000
			perIter := int64(s.Users)
			if s.Stats.RuntimeSec > sched*scheduleSlack+1 {
				bad = append(bad, fmt.Sprintf("fell behind: ran %.1f s for a %.1f s schedule", s.Stats.RuntimeSec, sched))
			}
			if s.PeakBacklog > perIter && perIter > 0 {
				bad = append(bad, fmt.Sprintf("backlog peaked at %s operations started and not finished (%s are started per iteration)",
					count(s.PeakBacklog), count(perIter)))
			}
			if s.Backlog > 0 {
				bad = append(bad, fmt.Sprintf("%s operations never finished", count(s.Backlog)))
			}
			if lag := s.MaxSchedulerLagMs; lag > max(lagShare*float64(r.Spec.Resolution), lagFloorMs) {
				notes = append(notes, fmt.Sprintf("%s: note: the load generator itself started operations up to %.0f ms late (the client machine was busy; latencies include that wait)", s.Scenario, lag))
			}
		}
		if s.Errors > 0 {
			total := s.Started
			if s.Subscriber != nil {
				total = s.Subscriber.Expected
			}
			msg := fmt.Sprintf("%s errors of %s operations (%.1f%%)", count(s.Errors), count(total), pct(s.Errors, total))
			if e := topError(s.ErrorSamples); e != "" {
				msg += ", most often: " + e
			}
			bad = append(bad, msg)
		}
		if target > 0 && s.Stats.P99 > target {
			bad = append(bad, fmt.Sprintf("p99 %.1f ms is over the %.1f ms target", s.Stats.P99, target))
		}
		if len(bad) == 0 {
			line := fmt.Sprintf("%s: kept up", s.Scenario)
			switch {
			case s.Subscriber != nil:
				line = fmt.Sprintf("%s: every event due was delivered once", s.Scenario)
			case r.Spec.Strategy == StrategyClosed:
				line = fmt.Sprintf("%s: %.1f operations per second, no errors", s.Scenario, s.Stats.OpsPerSec)
			default:
				line += fmt.Sprintf(" (%.1f s for a %.1f s schedule, backlog peak %s), no errors",
					s.Stats.RuntimeSec, float64(r.Spec.Iterations*r.Spec.Resolution)/1000, count(s.PeakBacklog))
			}
			if s.Stats.Count > 0 {
				line += fmt.Sprintf(", p99 %.1f ms", s.Stats.P99)
				if target > 0 {
					line += fmt.Sprintf(" (target %.1f ms)", target)
				}
			}
			v.Findings = append(v.Findings, line)
			continue
		}
		v.OK = false
		for _, b := range bad {
			v.Findings = append(v.Findings, s.Scenario+": "+b)
		}
		if worst == nil {
			worst = []string{s.Scenario + ": " + bad[0]}
		}
	}
	v.Findings = append(v.Findings, notes...)
	switch {
	case v.OK:
		v.Summary = "KEPT UP: every scenario kept to its schedule without errors"
		if target > 0 {
			v.Summary += fmt.Sprintf(" and within the %.1f ms p99 target", target)
		}
	default:
		v.Summary = "DID NOT KEEP UP: " + worst[0]
	}
	return v
}

// topError is the most frequent sampled error message, shortened.
func topError(samples map[string]int64) string {
	if len(samples) == 0 {
		return ""
	}
	msgs := make([]string, 0, len(samples))
	for m := range samples {
		msgs = append(msgs, m)
	}
	sort.Slice(msgs, func(i, j int) bool {
		if samples[msgs[i]] != samples[msgs[j]] {
			return samples[msgs[i]] > samples[msgs[j]]
		}
		return msgs[i] < msgs[j]
	})
	m := msgs[0]
	if len(m) > 160 {
		m = m[:157] + "..."
	}
	return fmt.Sprintf("%q (x%s)", m, count(samples[msgs[0]]))
}

func pct(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// count writes n with thousands separators.
func count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
