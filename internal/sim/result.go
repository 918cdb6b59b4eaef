package sim

import (
	"encoding/json"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Report is what `lode sim run` writes: one Result per target (two with
// --compare-uri).
type Report struct {
	Generated time.Time `json:"generated"`
	Runs      []*Result `json:"runs"`
}

// Result is one simulation run against one target.
type Result struct {
	Spec   Spec   `json:"spec"`
	Target string `json:"target"`
	// Server is the target's version as reported by buildInfo.
	Server    string    `json:"server"`
	StartedAt time.Time `json:"startedAt"`
	// RuntimeSec is from the first scheduled start to the last finish.
	RuntimeSec float64          `json:"runtimeSec"`
	Scenarios  []ScenarioResult `json:"scenarios"`
	// ServerStatus holds the target's serverStatus sampled each second.
	ServerStatus []ServerSample `json:"serverStatus"`
	// Counting states how operations were counted.
	Counting string `json:"counting"`
	// Latency states where latencies are measured from.
	Latency string `json:"latency"`
	// Advice is the index advisor's table for the target, and AdviceJSON
	// its report (`lode sim run --advise`); empty otherwise.
	Advice     string          `json:"-"`
	AdviceJSON json.RawMessage `json:"advice,omitempty"`
	// P99TargetMs is the latency target the verdict holds each
	// scenario's 99th percentile to (`lode sim run --p99-target`); 0
	// for none.
	P99TargetMs float64 `json:"p99TargetMs,omitempty"`
}

// ScenarioResult is one scenario's figures.
type ScenarioResult struct {
	Scenario string `json:"scenario"`
	Users    int    `json:"users"`
	Params   Params `json:"params"`
	// Started and Finished count operations; Backlog is Started-Finished
	// at the end and PeakBacklog its maximum during the run.
	Started     int64 `json:"started"`
	Finished    int64 `json:"finished"`
	Errors      int64 `json:"errors"`
	Backlog     int64 `json:"backlog"`
	PeakBacklog int64 `json:"peakBacklog"`
	// ErrorSamples counts up to ten distinct error messages.
	ErrorSamples map[string]int64 `json:"errorSamples,omitempty"`
	// MaxSchedulerLagMs is the worst delay between an operation's
	// scheduled start and its actual start (slicetime): the load
	// generator's own health.
	MaxSchedulerLagMs float64 `json:"maxSchedulerLagMs"`
	// Stats are the latencies: from each operation's scheduled start to
	// its finish (slicetime), so time spent waiting behind a slow load
	// generator counts (no coordinated omission); in the closed strategy
	// from its start.
	Stats Stats `json:"stats"`
	// ServiceStats are the service times: from each operation's actual
	// start to its finish. They equal Stats in the closed strategy.
	ServiceStats Stats `json:"serviceStats"`
	// Timeline has one entry per second of the run.
	Timeline []WindowStats `json:"timeline"`
	// Histogram is the latency distribution in log-spaced buckets.
	Histogram []Bucket `json:"histogram"`
	// HDR is the full histogram (µs), HdrHistogram V2 compressed base64.
	HDR string `json:"hdr"`
	// ServiceHistogram and ServiceHDR are the same for service times.
	ServiceHistogram []Bucket `json:"serviceHistogram"`
	ServiceHDR       string   `json:"serviceHdr"`
	// Subscriber holds a subscriber scenario's delivery figures (nil for
	// other scenarios); its Stats are delivery latencies.
	Subscriber *SubscriberStats `json:"subscriber,omitempty"`
}

// Stats are the seeds' statistics, in milliseconds, plus throughput.
type Stats struct {
	RuntimeSec float64 `json:"runtimeSec"`
	Count      int64   `json:"count"`
	OpsPerSec  float64 `json:"opsPerSec"`
	Mean       float64 `json:"meanMs"`
	StdDev     float64 `json:"stdDevMs"`
	P50        float64 `json:"p50Ms"`
	P75        float64 `json:"p75Ms"`
	P95        float64 `json:"p95Ms"`
	P99        float64 `json:"p99Ms"`
	Min        float64 `json:"minMs"`
	Max        float64 `json:"maxMs"`
}

// WindowStats are the figures of one second of the run.
type WindowStats struct {
	Second   int     `json:"second"`
	Started  int64   `json:"started"`
	Finished int64   `json:"finished"`
	Errors   int64   `json:"errors"`
	Backlog  int64   `json:"backlog"`
	P50      float64 `json:"p50Ms"`
	P95      float64 `json:"p95Ms"`
	P99      float64 `json:"p99Ms"`
	Max      float64 `json:"maxMs"`
}

// Bucket is one bar of a latency histogram: Count operations took
// between FromMs and ToMs.
type Bucket struct {
	FromMs float64 `json:"fromMs"`
	ToMs   float64 `json:"toMs"`
	Count  int64   `json:"count"`
}

// ServerSample is the target's serverStatus at one instant.
type ServerSample struct {
	Second      float64          `json:"second"`
	Opcounters  map[string]int64 `json:"opcounters"`
	Connections int64            `json:"connections"`
}

func ms(us int64) float64      { return float64(us) / 1000 }
func msf(us float64) float64   { return us / 1000 }
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

func statsOf(h *hdrhistogram.Histogram, runtime time.Duration) Stats {
	s := Stats{RuntimeSec: round3(runtime.Seconds()), Count: h.TotalCount()}
	if s.Count == 0 {
		return s
	}
	if runtime > 0 {
		s.OpsPerSec = math.Round(float64(s.Count)/runtime.Seconds()*10) / 10
	}
	s.Mean = round3(msf(h.Mean()))
	s.StdDev = round3(msf(h.StdDev()))
	s.P50 = ms(h.ValueAtQuantile(50))
	s.P75 = ms(h.ValueAtQuantile(75))
	s.P95 = ms(h.ValueAtQuantile(95))
	s.P99 = ms(h.ValueAtQuantile(99))
	s.Min = ms(h.Min())
	s.Max = ms(h.Max())
	return s
}

// result turns a recorder into a ScenarioResult.
func (r *recorder) result(ss ScenarioSpec, params Params) ScenarioResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := ScenarioResult{
		Scenario: ss.Scenario, Users: ss.Users, Params: params,
		Started: r.started, Finished: r.finished, Errors: r.errors,
		Backlog: r.started - r.finished, PeakBacklog: r.peak,
		MaxSchedulerLagMs: round3(float64(r.maxLag.Microseconds()) / 1000),
		Stats:             statsOf(r.total, r.last),
		ServiceStats:      statsOf(r.service, r.last),
		Histogram:         buckets(r.total, 40),
		ServiceHistogram:  buckets(r.service, 40),
	}
	if len(r.errMsgs) > 0 {
		out.ErrorSamples = map[string]int64{}
		for k, v := range r.errMsgs {
			out.ErrorSamples[k] = v
		}
	}
	var st, fin int64
	for i, w := range r.windows {
		st += w.started
		fin += w.finished
		ws := WindowStats{Second: i, Started: w.started, Finished: w.finished, Errors: w.errors, Backlog: st - fin}
		if w.hist.TotalCount() > 0 {
			ws.P50 = ms(w.hist.ValueAtQuantile(50))
			ws.P95 = ms(w.hist.ValueAtQuantile(95))
			ws.P99 = ms(w.hist.ValueAtQuantile(99))
			ws.Max = ms(w.hist.Max())
		}
		out.Timeline = append(out.Timeline, ws)
	}
	if enc, err := r.total.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		out.HDR = string(enc)
	}
	if enc, err := r.service.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		out.ServiceHDR = string(enc)
	}
	return out
}

// buckets rebins h into at most n log-spaced buckets between its minimum
// and maximum.
func buckets(h *hdrhistogram.Histogram, n int) []Bucket {
	if h.TotalCount() == 0 {
		return nil
	}
	lo, hi := float64(h.Min()), float64(h.Max())+1
	if lo < 1 {
		lo = 1
	}
	if hi <= lo*1.0001 {
		return []Bucket{{FromMs: msf(lo), ToMs: msf(hi), Count: h.TotalCount()}}
	}
	step := math.Log(hi/lo) / float64(n)
	out := make([]Bucket, n)
	for i := range out {
		out[i].FromMs = round3(msf(lo * math.Exp(step*float64(i))))
		out[i].ToMs = round3(msf(lo * math.Exp(step*float64(i+1))))
	}
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := float64(b.From)
		if v < lo {
			v = lo
		}
		i := int(math.Log(v/lo) / step)
		if i >= n {
			i = n - 1
		}
		if i < 0 {
			i = 0
		}
		out[i].Count += b.Count
	}
	return out
}
