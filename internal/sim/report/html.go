package report

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/lodedb/lode/internal/sim"
)

type htmlScenario struct {
	Heading string
	Note    string
	Params  string
	Rows    [][]string // statistic, one cell per run
	Charts  []htmlCharts
	Errors  []string
}

type htmlCharts struct {
	Target string
	SVG    []template.HTML
}

type htmlRun struct {
	Target, Server, Runtime string
	Verdict                 sim.Verdict
	Server1                 []template.HTML
	Advice                  string
}

type htmlPage struct {
	Title     string
	Generated string
	Load      [][2]string
	Runs      []htmlRun
	Heads     []string
	Scenarios []htmlScenario
	Counting  string
	Latency   string
}

// WriteHTML writes the self-contained HTML report.
func WriteHTML(w io.Writer, rep *sim.Report) error {
	if len(rep.Runs) == 0 {
		return fmt.Errorf("report: no runs")
	}
	first := rep.Runs[0]
	sp := first.Spec
	pg := htmlPage{
		Title:     "lode sim: " + sp.Name,
		Generated: rep.Generated.UTC().Format("2006-01-02 15:04:05 UTC"),
		Counting:  first.Counting,
		Latency:   first.Latency,
		Load: [][2]string{
			{"Simulation", sp.Name}, {"Processes", fmt.Sprint(sp.Processes)}, {"Pool size per process", fmt.Sprint(sp.PoolSize)},
			{"Type", sp.Type}, {"Resolution in milliseconds", fmt.Sprint(sp.Resolution)},
			{"Iterations run", fmt.Sprint(sp.Iterations)}, {"Execution strategy", sp.Strategy},
			{"Operation timeout", sp.OpTimeout().String()},
		},
	}
	if sp.Description != "" {
		pg.Load = append(pg.Load, [2]string{"Description", sp.Description})
	}
	for _, ss := range sp.Scenarios {
		label := "Users per iteration: "
		if sc, err := sim.Lookup(ss.Scenario); err == nil && sc.Subscribe != nil {
			label = "Subscribers: "
		}
		pg.Load = append(pg.Load, [2]string{label + ss.Scenario, fmt.Sprint(ss.Users)})
	}
	for i, r := range rep.Runs {
		pg.Heads = append(pg.Heads, fmt.Sprintf("Target %d", i+1))
		pg.Runs = append(pg.Runs, htmlRun{
			Target: r.Target, Server: r.Server, Runtime: fmt.Sprintf("%.3f s", r.RuntimeSec),
			Server1: serverCharts(r), Advice: r.Advice, Verdict: r.Verdict(),
		})
	}
	for si, ss := range first.Scenarios {
		hs := htmlScenario{Heading: heading(&ss), Params: paramString(ss.Params)}
		if ss.Subscriber != nil {
			hs.Note = SubscriberNote
		}
		for _, rw := range rowsFor(rep, si) {
			cells := []string{rw.label}
			for _, r := range rep.Runs {
				if si < len(r.Scenarios) && (r.Scenarios[si].Subscriber != nil) == (ss.Subscriber != nil) {
					cells = append(cells, rw.value(r, &r.Scenarios[si]))
				}
			}
			hs.Rows = append(hs.Rows, cells)
		}
		for i, r := range rep.Runs {
			if si >= len(r.Scenarios) {
				continue
			}
			s := &r.Scenarios[si]
			hs.Charts = append(hs.Charts, htmlCharts{Target: fmt.Sprintf("Target %d: %s", i+1, r.Target), SVG: scenarioCharts(s)})
			for msg, n := range s.ErrorSamples {
				hs.Errors = append(hs.Errors, fmt.Sprintf("Target %d: %d x %s", i+1, n, msg))
			}
		}
		sort.Strings(hs.Errors)
		pg.Scenarios = append(pg.Scenarios, hs)
	}
	return pageTmpl.Execute(w, pg)
}

func paramString(p sim.Params) string {
	var parts []string
	for _, k := range p.Keys() {
		parts = append(parts, fmt.Sprintf("%s=%v", k, p[k]))
	}
	return strings.Join(parts, ", ")
}

func scenarioCharts(s *sim.ScenarioResult) []template.HTML {
	var xs, started, finished, backlog, p50, p95, p99, mx []float64
	for _, w := range s.Timeline {
		xs = append(xs, float64(w.Second)+0.5)
		started = append(started, float64(w.Started))
		finished = append(finished, float64(w.Finished))
		backlog = append(backlog, float64(w.Backlog))
		p50 = append(p50, w.P50)
		p95 = append(p95, w.P95)
		p99 = append(p99, w.P99)
		mx = append(mx, w.Max)
	}
	toBars := func(bs []sim.Bucket) []bar {
		var bars []bar
		for _, b := range bs {
			bars = append(bars, bar{label: fmtMs(b.FromMs), count: float64(b.Count)})
		}
		return bars
	}
	if s.Subscriber != nil {
		return []template.HTML{
			template.HTML(lineChart("Events delivered per second", "seconds", "events/s", []series{{"delivered", xs, finished}})),
			template.HTML(logLineChart("Latency from the stamp, per second", "seconds", "milliseconds", []series{
				{"p50", xs, p50}, {"p95", xs, p95}, {"p99", xs, p99}, {"max", xs, mx},
			})),
			template.HTML(barChart(fmt.Sprintf("Delivery latency from the stamp (%d events)", s.Stats.Count), "milliseconds (log buckets)", "events", toBars(s.Histogram))),
			template.HTML(barChart(fmt.Sprintf("Delivery latency from the ack (%d events)", s.ServiceStats.Count), "milliseconds (log buckets)", "events", toBars(s.ServiceHistogram))),
		}
	}
	return []template.HTML{
		template.HTML(lineChart("Operations per second", "seconds", "ops/s", []series{
			{"finished", xs, finished}, {"started", xs, started},
		})),
		template.HTML(lineChart("Backlog (started, not finished)", "seconds", "operations", []series{
			{"backlog", xs, backlog},
		})),
		template.HTML(logLineChart("Latency percentiles per second", "seconds", "milliseconds", []series{
			{"p50", xs, p50}, {"p95", xs, p95}, {"p99", xs, p99}, {"max", xs, mx},
		})),
		template.HTML(barChart(fmt.Sprintf("Latency histogram (%d ops)", s.Stats.Count), "milliseconds (log buckets)", "operations", toBars(s.Histogram))),
		template.HTML(barChart(fmt.Sprintf("Service time histogram (%d ops)", s.ServiceStats.Count), "milliseconds (log buckets)", "operations", toBars(s.ServiceHistogram))),
	}
}

func serverCharts(r *sim.Result) []template.HTML {
	if len(r.ServerStatus) < 2 {
		return nil
	}
	keys := map[string]bool{}
	for _, s := range r.ServerStatus {
		for k := range s.Opcounters {
			keys[k] = true
		}
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var ops []series
	for _, k := range names {
		var xs, ys []float64
		for i := 1; i < len(r.ServerStatus); i++ {
			a, b := r.ServerStatus[i-1], r.ServerStatus[i]
			dt := b.Second - a.Second
			if dt <= 0 {
				continue
			}
			xs = append(xs, b.Second)
			ys = append(ys, float64(b.Opcounters[k]-a.Opcounters[k])/dt)
		}
		ops = append(ops, series{k, xs, ys})
	}
	var xs, conns []float64
	for _, s := range r.ServerStatus {
		xs = append(xs, s.Second)
		conns = append(conns, float64(s.Connections))
	}
	return []template.HTML{
		template.HTML(lineChart("serverStatus opcounters per second", "seconds", "ops/s", ops)),
		template.HTML(lineChart("serverStatus connections.current", "seconds", "connections", []series{{"current", xs, conns}})),
	}
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1360px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px} h3{font-size:14px;margin:12px 0 4px;color:#555}
table{border-collapse:collapse;margin:6px 0} td,th{border:1px solid #ddd;padding:3px 10px;text-align:left} th{background:#f4f4f4} td.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:10px}
.chart{background:#fff;border:1px solid #e4e4e4}
.chart .title{font-size:13px;font-weight:600} .chart .tick{font-size:10px;fill:#555} .chart .label{font-size:11px;fill:#333} .chart .legend{font-size:10px}
.chart .grid{stroke:#eee} .chart .box{fill:none;stroke:#bbb}
.muted{color:#666} .cols{display:flex;gap:24px;flex-wrap:wrap} .err{color:#b00}
.verdict{border:2px solid #2a7d2a;background:#f1faf1;padding:8px 14px;margin:14px 0;max-width:1100px}
.verdict.bad{border-color:#b00;background:#fdf1f1}
.verdict .sum{font-size:16px;font-weight:700} .verdict ul{margin:4px 0 0;padding-left:20px}
pre.advice{white-space:pre-wrap;overflow-wrap:anywhere;max-width:1320px;background:#f8f8f8;padding:8px;border:1px solid #e4e4e4}
</style></head><body>
<h1>{{.Title}}</h1>
<div class="muted">generated {{.Generated}} by lode sim</div>
{{range $i, $r := .Runs}}<div class="verdict{{if not $r.Verdict.OK}} bad{{end}}" id="verdict-{{$i}}"><div class="sum">{{index $.Heads $i}} ({{$r.Target}}): {{$r.Verdict.Summary}}</div>
<ul>{{range $r.Verdict.Findings}}<li>{{.}}</li>{{end}}</ul></div>{{end}}
<div class="cols">
<div><h2>Parameters</h2><table>{{range .Load}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table></div>
<div><h2>Targets</h2><table><tr><th></th><th>Target</th><th>Server</th><th>Total runtime</th></tr>
{{range $i, $r := .Runs}}<tr><th>{{index $.Heads $i}}</th><td>{{$r.Target}}</td><td>{{$r.Server}}</td><td class="num">{{$r.Runtime}}</td></tr>{{end}}</table>
<p class="muted" style="max-width:560px">{{.Counting}}.</p>{{if .Latency}}<p class="muted" style="max-width:560px">Latency: {{.Latency}}.</p>{{end}}</div>
</div>
{{range .Scenarios}}
<h2>{{.Heading}}</h2>
<div class="muted">params: {{.Params}}</div>{{if .Note}}<div class="muted">{{.Note}}.</div>{{end}}
<div class="cols"><table><tr><th>Statistics</th>{{range $.Heads}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $j, $c := .}}{{if eq $j 0}}<th>{{$c}}</th>{{else}}<td class="num">{{$c}}</td>{{end}}{{end}}</tr>{{end}}</table>
<div>{{range .Charts}}<h3>{{.Target}}</h3><div class="charts">{{range .SVG}}{{.}}{{end}}</div>{{end}}</div></div>
{{range .Errors}}<div class="err">{{.}}</div>{{end}}
{{end}}
<h2>Target serverStatus, sampled each second</h2>
{{range $i, $r := .Runs}}<h3>{{index $.Heads $i}}: {{$r.Target}}</h3><div class="charts">{{range $r.Server1}}{{.}}{{end}}</div>{{end}}
{{range $i, $r := .Runs}}{{if $r.Advice}}<h2>Index advice: {{index $.Heads $i}}</h2><pre class="advice">{{$r.Advice}}</pre>{{end}}{{end}}
</body></html>
`))
