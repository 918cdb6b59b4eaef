package report

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/test/testenv"
)

// pageCheck runs in the rendered report and measures what a reader sees:
// every chart's text inside its chart, the advice wrapped, no horizontal
// scrolling at 1400 px, the verdict at the top, and each chart's ticks.
const pageCheck = `<script>
(function () {
  var out = {clipped: [], pageWidth: document.documentElement.scrollWidth, viewWidth: window.innerWidth, charts: []};
  document.querySelectorAll('svg.chart').forEach(function (svg, i) {
    var box = svg.getBoundingClientRect();
    var c = {title: svg.querySelector('.title').textContent, xticks: [], yticks: [], ylabel: ''};
    svg.querySelectorAll('text').forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        out.clipped.push(c.title + ': ' + t.textContent);
      }
      if (t.classList.contains('xtick')) c.xticks.push(t.textContent);
      if (t.classList.contains('ytick')) c.yticks.push(t.textContent);
      if (t.getAttribute('transform')) c.ylabel = t.textContent;
    });
    out.charts.push(c);
  });
  var pre = document.querySelector('pre.advice');
  out.adviceOverflow = pre ? pre.scrollWidth - pre.clientWidth : -1;
  var v = document.querySelector('.verdict');
  out.verdictTop = v ? v.getBoundingClientRect().top : -1;
  out.verdict = v ? v.textContent : '';
  var res = document.createElement('pre');
  res.id = 'check-result';
  res.textContent = JSON.stringify(out);
  document.body.appendChild(res);
})();
</script>`

type checkResult struct {
	Clipped        []string `json:"clipped"`
	PageWidth      float64  `json:"pageWidth"`
	ViewWidth      float64  `json:"viewWidth"`
	AdviceOverflow float64  `json:"adviceOverflow"`
	VerdictTop     float64  `json:"verdictTop"`
	Verdict        string   `json:"verdict"`
	Charts         []struct {
		Title  string   `json:"title"`
		XTicks []string `json:"xticks"`
		YTicks []string `json:"yticks"`
		YLabel string   `json:"ylabel"`
	} `json:"charts"`
}

// chromium finds a headless-capable Chromium, or skips (fails when the
// test run requires every client).
func chromium(t *testing.T) string {
	var err error
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		var p string
		if p, err = testenv.LookTool(name); err == nil {
			return p
		}
	}
	testenv.MissingClient(t, testenv.GroupChromium, "chromium not installed: the report's look is not checked", err)
	return ""
}

// TestReportInBrowser renders the HTML report of a run that fell behind
// in headless Chromium at 1400 px and checks what issue 35 found wrong
// with it: the verdict first, nothing clipped, the advice wrapped,
// round tick values, and latency percentiles on a log scale.
func TestReportInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b strings.Builder
	if err := WriteHTML(&b, browserReport()); err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(b.String(), "</body>", pageCheck+"</body>", 1)
	if err := os.WriteFile(page, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,3000",
		"--virtual-time-budget=2000", "--dump-dom", "file://"+page)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	m := regexp.MustCompile(`(?s)<pre id="check-result">(.*?)</pre>`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the page's check did not run; chromium printed %d bytes", len(out))
	}
	var res checkResult
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Clipped) > 0 {
		t.Errorf("chart text outside its chart: %q", res.Clipped)
	}
	if res.PageWidth > res.ViewWidth {
		t.Errorf("the page is %v px wide in a %v px window", res.PageWidth, res.ViewWidth)
	}
	if res.AdviceOverflow > 0 {
		t.Errorf("the advice overflows its block by %v px", res.AdviceOverflow)
	}
	if res.VerdictTop < 0 || res.VerdictTop > 120 || !strings.Contains(res.Verdict, "DID NOT KEEP UP") {
		t.Errorf("verdict at %v px: %q; want it under the title, saying the run did not keep up", res.VerdictTop, res.Verdict)
	}
	if len(res.Charts) < 7 {
		t.Fatalf("%d charts rendered", len(res.Charts))
	}
	for _, c := range res.Charts {
		if len(c.XTicks) > 0 {
			checkRoundTicks(t, c.Title+" x", c.XTicks)
		}
		if strings.Contains(c.YLabel, "log scale") {
			for _, s := range c.YTicks {
				var v float64
				fmt.Sscan(s, &v)
				if e := math.Log10(v); math.Abs(e-math.Round(e)) > 1e-9 {
					t.Errorf("%s: log-scale tick %q is not a power of ten", c.Title, s)
				}
			}
			continue
		}
		checkRoundTicks(t, c.Title+" y", c.YTicks)
	}
	for _, want := range []string{"Latency percentiles per second"} {
		found := false
		for _, c := range res.Charts {
			found = found || c.Title == want && strings.Contains(c.YLabel, "log scale")
		}
		if !found {
			t.Errorf("no %q chart on a log scale", want)
		}
	}
}

// checkRoundTicks wants ticks from 0 in equal steps of 1, 2 or 5 times a
// power of ten.
func checkRoundTicks(t *testing.T, what string, ticks []string) {
	t.Helper()
	var vs []float64
	for _, s := range ticks {
		var v float64
		if _, err := fmt.Sscan(s, &v); err != nil {
			t.Errorf("%s: tick %q is not a number", what, s)
			return
		}
		vs = append(vs, v)
	}
	if len(vs) < 2 || vs[0] != 0 {
		t.Errorf("%s: ticks %q do not start at 0", what, ticks)
		return
	}
	step := vs[1] - vs[0]
	m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	if math.Abs(m-1) > 1e-6 && math.Abs(m-2) > 1e-6 && math.Abs(m-5) > 1e-6 {
		t.Errorf("%s: tick step %v in %q is not 1, 2 or 5 times a power of ten", what, step, ticks)
	}
	for i := 1; i < len(vs); i++ {
		if math.Abs(vs[i]-vs[i-1]-step) > step*1e-6 {
			t.Errorf("%s: uneven ticks %q", what, ticks)
			return
		}
	}
}

// browserReport is a run of 26 seconds that fell behind, with a latency
// spike, a subscriber scenario, six opcounters and a long advice line.
func browserReport() *sim.Report {
	var tl []sim.WindowStats
	for s := range 26 {
		w := sim.WindowStats{Second: s, Started: 1000, Finished: 950, Backlog: int64(37 * s), P50: 0.8, P95: 2.1, P99: 4.9, Max: 12}
		if s == 13 {
			w.Max = 4800 // one spike: a linear axis flattens the rest
		}
		tl = append(tl, w)
	}
	var hist []sim.Bucket
	for i := range 24 {
		from := 0.065 * math.Pow(1.5, float64(i))
		hist = append(hist, sim.Bucket{FromMs: from, ToMs: from * 1.5, Count: int64(100 + 50*(i%7))})
	}
	sc := sim.ScenarioResult{
		Scenario: "metadata_search", Users: 1000, Started: 25000, Finished: 25000, Errors: 15674, PeakBacklog: 20688,
		ErrorSamples: map[string]int64{"(MaxTimeMSExpired) operation exceeded time limit": 15674},
		Stats:        sim.Stats{RuntimeSec: 87, Count: 25000, P99: 4.9},
		Timeline:     tl, Histogram: hist, ServiceHistogram: hist,
	}
	sub := sim.ScenarioResult{
		Scenario: "watch_queue", Users: 3, Timeline: tl, Histogram: hist, ServiceHistogram: hist,
		Subscriber: &sim.SubscriberStats{Expected: 3000, Delivered: 3000},
	}
	var status []sim.ServerSample
	for s := range 27 {
		oc := map[string]int64{}
		for i, k := range []string{"command", "delete", "getmore", "insert", "query", "update"} {
			oc[k] = int64(s * 1000 * (i + 1))
		}
		status = append(status, sim.ServerSample{Second: float64(s), Opcounters: oc, Connections: 200})
	}
	advice := "index advice: " + strings.Repeat(`db.getSiblingDB("sim").images.createIndex({"metadata.key": 1, "metadata.value": 1}) `, 12)
	return &sim.Report{Generated: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC), Runs: []*sim.Result{{
		Spec: sim.Spec{Name: "metadata-without-index", Processes: 4, PoolSize: 50, Iterations: 25, Resolution: 1000,
			Type: sim.TypeConstant, Strategy: sim.StrategySlicetime},
		Target: "embedded Lode, temporary data directory", Server: "7.0.14", RuntimeSec: 87,
		Scenarios: []sim.ScenarioResult{sc, sub}, ServerStatus: status, Advice: advice,
		Counting: "every operation is counted", Latency: "from the scheduled start",
	}}}
}
