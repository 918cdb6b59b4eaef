package sim

import (
	"regexp"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in microseconds, from 1 µs to 1 hour, with
// three significant digits for the whole run and two per window.
const (
	histMin     = 1
	histMax     = int64(time.Hour / time.Microsecond)
	histSigFigs = 3
	winSigFigs  = 2
)

// digits is replaced in error messages so that messages differing only
// in durations, ports or ids group together.
var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// recorder counts one scenario's operations. Every started operation is
// counted; every finished one goes into the histograms.
type recorder struct {
	mu       sync.Mutex
	start    time.Time
	total    *hdrhistogram.Histogram // latency from the scheduled start
	service  *hdrhistogram.Histogram // service time, from the actual start
	windows  []*window
	started  int64
	finished int64
	errors   int64
	errMsgs  map[string]int64
	last     time.Duration // last finish, since start
	maxLag   time.Duration // worst scheduler lag (slicetime)
	peak     int64         // peak backlog
}

type window struct {
	hist     *hdrhistogram.Histogram
	started  int64
	finished int64
	errors   int64
}

func newRecorder(start time.Time) *recorder {
	return &recorder{
		start:   start,
		total:   hdrhistogram.New(histMin, histMax, histSigFigs),
		service: hdrhistogram.New(histMin, histMax, histSigFigs),
		errMsgs: map[string]int64{},
	}
}

func (r *recorder) window(at time.Time) *window {
	i := int(at.Sub(r.start) / time.Second)
	if i < 0 {
		i = 0
	}
	for len(r.windows) <= i {
		r.windows = append(r.windows, &window{hist: hdrhistogram.New(histMin, histMax, winSigFigs)})
	}
	return r.windows[i]
}

// begin counts an operation started at now, lag after its scheduled time.
func (r *recorder) begin(now time.Time, lag time.Duration) {
	r.mu.Lock()
	r.started++
	r.window(now).started++
	if lag > r.maxLag {
		r.maxLag = lag
	}
	if b := r.started - r.finished; b > r.peak {
		r.peak = b
	}
	r.mu.Unlock()
}

// clampUs converts d to whole microseconds within the histograms' range.
func clampUs(d time.Duration) int64 {
	return min(max(d.Microseconds(), histMin), histMax)
}

// end records an operation that finished at now with err: lat is its
// latency from the scheduled start, svc its service time from the actual
// start (equal in the closed strategy, which has no schedule).
func (r *recorder) end(now time.Time, lat, svc time.Duration, err error) {
	us := clampUs(lat)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished++
	w := r.window(now)
	w.finished++
	if err != nil {
		r.countErrors(w, 1, err)
	}
	_ = r.total.RecordValue(us)
	_ = r.service.RecordValue(clampUs(svc))
	_ = w.hist.RecordValue(us)
	if d := now.Sub(r.start); d > r.last {
		r.last = d
	}
}

// countErrors counts n errors like err in the run and in window w.
// r.mu is held.
func (r *recorder) countErrors(w *window, n int64, err error) {
	r.errors += n
	w.errors += n
	msg := digits.ReplaceAllString(err.Error(), "N")
	if len(msg) > 200 {
		msg = msg[:200]
	}
	if _, ok := r.errMsgs[msg]; ok || len(r.errMsgs) < 10 {
		r.errMsgs[msg] += n
	} else {
		r.errMsgs["(other errors)"] += n
	}
}

// fail counts an error that is not an operation's outcome (a subscriber
// that stopped): it goes into no latency histogram.
func (r *recorder) fail(now time.Time, err error) { r.failN(now, 1, err) }

// failN counts n such errors at once (messages a subscriber missed).
func (r *recorder) failN(now time.Time, n int64, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.countErrors(r.window(now), n, err)
}
