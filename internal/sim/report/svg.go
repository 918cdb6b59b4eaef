package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// palette colours the series of a chart.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}

// series is one line of a line chart.
type series struct {
	name string
	xs   []float64
	ys   []float64
}

const (
	chartW, chartH = 330, 230
	padL, padR     = 56, 12
	padT, padB     = 28, 44
)

// niceStep is the tick interval for an axis spanning span with at most
// maxTicks intervals: 1, 2 or 5 times a power of ten.
func niceStep(span float64, maxTicks int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(maxTicks)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// linearAxis returns the ticks of an axis from 0 that holds v: evenly
// spaced round values, the last at or above v.
func linearAxis(v float64, maxTicks int) []float64 {
	step := niceStep(v, maxTicks)
	n := int(math.Ceil(v/step - 1e-9))
	n = max(n, 1)
	ticks := make([]float64, 0, n+1)
	for i := 0; i <= n; i++ {
		ticks = append(ticks, float64(i)*step)
	}
	return ticks
}

// fmtTick writes a tick value with no more decimals than step needs.
func fmtTick(v, step float64) string {
	if v == 0 {
		return "0"
	}
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// fmtMs writes a histogram bucket's bound in milliseconds with two
// significant digits.
func fmtMs(v float64) string {
	if v >= 10 {
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// axis maps data to pixels along one dimension and lists its ticks.
type axis struct {
	ticks []float64
	label func(float64) string
	pos   func(float64) float64 // 0..1 along the axis
}

func linAxis(v float64, maxTicks int) axis {
	ticks := linearAxis(v, maxTicks)
	top := ticks[len(ticks)-1]
	step := ticks[1] - ticks[0]
	return axis{ticks: ticks, label: func(t float64) string { return fmtTick(t, step) },
		pos: func(x float64) float64 { return x / top }}
}

// logAxis is a base-10 axis over the positive values in [lo, hi]; values
// at or below the lowest decade are drawn on it.
func logAxis(lo, hi float64) axis {
	if lo <= 0 || hi <= 0 {
		lo, hi = 0.1, 1
	}
	a := math.Floor(math.Log10(lo))
	b := math.Ceil(math.Log10(hi))
	if b <= a {
		b = a + 1
	}
	var ticks []float64
	for e := a; e <= b; e++ {
		ticks = append(ticks, math.Pow(10, e))
	}
	return axis{ticks: ticks,
		label: func(t float64) string { return strconv.FormatFloat(t, 'f', -1, 64) },
		pos: func(x float64) float64 {
			if x <= 0 {
				return 0
			}
			return math.Max(0, (math.Log10(x)-a)/(b-a))
		}}
}

// frame draws the chart's box, title, axis labels and ticks (x ticks
// when xa is not nil); it returns the builder and the functions mapping
// data to pixels.
func frame(title, xLabel, yLabel string, xa *axis, ya axis) (*strings.Builder, func(float64) float64, func(float64) float64) {
	var b strings.Builder
	pw, ph := float64(chartW-padL-padR), float64(chartH-padT-padB)
	fx := func(x float64) float64 { return padL }
	if xa != nil {
		fx = func(x float64) float64 { return padL + xa.pos(x)*pw }
	}
	fy := func(y float64) float64 { return padT + ph - ya.pos(y)*ph }
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" class="chart">`, chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="16" class="title">%s</text>`, titleX, html.EscapeString(title))
	for _, t := range ya.ticks {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, padL, chartW-padR, fy(t), fy(t))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="tick ytick" text-anchor="end">%s</text>`, padL-4, fy(t)+4, ya.label(t))
	}
	if xa != nil {
		for _, t := range xa.ticks {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="tick xtick" text-anchor="middle">%s</text>`, fx(t), chartH-padB+14, xa.label(t))
		}
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" class="box"/>`, padL, padT, pw, ph)
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" class="label" text-anchor="middle">%s</text>`, padL+pw/2, chartH-padB+30, html.EscapeString(xLabel))
	fmt.Fprintf(&b, `<text x="12" y="%.0f" class="label" text-anchor="middle" transform="rotate(-90 12 %.0f)">%s</text>`, padT+ph/2, padT+ph/2, html.EscapeString(yLabel))
	return &b, fx, fy
}

// titleX is where a chart's title starts: at the chart's left edge, so
// that a long title has the whole width.
const titleX = 6

// lineChart draws series as polylines with a legend, on a linear y axis
// from 0.
func lineChart(title, xLabel, yLabel string, ss []series) string {
	ymax := 0.0
	for _, s := range ss {
		for _, y := range s.ys {
			ymax = math.Max(ymax, y)
		}
	}
	return drawLines(title, xLabel, yLabel, ss, linAxis(math.Max(ymax*1.05, 1e-9), 4))
}

// logLineChart draws series on a logarithmic y axis: latency
// percentiles, where a spike in the maximum would otherwise flatten
// the median to the floor.
func logLineChart(title, xLabel, yLabel string, ss []series) string {
	lo, hi := math.Inf(1), 0.0
	for _, s := range ss {
		for _, y := range s.ys {
			if y > 0 {
				lo = math.Min(lo, y)
				hi = math.Max(hi, y)
			}
		}
	}
	if hi == 0 {
		lo, hi = 0.1, 1
	}
	return drawLines(title, xLabel, yLabel+" (log scale)", ss, logAxis(lo, hi))
}

func drawLines(title, xLabel, yLabel string, ss []series, ya axis) string {
	xmax := 1.0
	for _, s := range ss {
		for _, x := range s.xs {
			xmax = math.Max(xmax, x)
		}
	}
	xa := linAxis(xmax, 6)
	b, fx, fy := frame(title, xLabel, yLabel, &xa, ya)
	for i, s := range ss {
		col := palette[i%len(palette)]
		var pts []string
		for j := range s.xs {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", fx(s.xs[j]), fy(s.ys[j])))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.6" points="%s"/>`, col, strings.Join(pts, " "))
		lx := padL + 8 + (i%3)*86
		ly := padT + 12 + (i/3)*13
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="3" fill="%s"/><text x="%d" y="%d" class="legend">%s</text>`,
			lx, ly-4, col, lx+14, ly, html.EscapeString(s.name))
	}
	b.WriteString("</svg>")
	return b.String()
}

// bar is one bar of a histogram chart.
type bar struct {
	label string
	count float64
}

// barChart draws bars of equal width, labelling every few.
func barChart(title, xLabel, yLabel string, bars []bar) string {
	ymax := 0.0
	for _, br := range bars {
		ymax = math.Max(ymax, br.count)
	}
	n := max(len(bars), 1)
	b, _, fy := frame(title, xLabel, yLabel, nil, linAxis(math.Max(ymax*1.05, 1e-9), 4))
	pw := float64(chartW - padL - padR)
	w := pw / float64(n)
	for i, br := range bars {
		x := padL + float64(i)*w
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s ms: %.0f</title></rect>`,
			x+0.5, fy(br.count), math.Max(w-1, 0.5), fy(0)-fy(br.count), palette[0], html.EscapeString(br.label), br.count)
		if every := max(n/5, 1); i%every == 0 {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" class="tick" text-anchor="start">%s</text>`, x, chartH-padB+14, html.EscapeString(br.label))
		}
	}
	b.WriteString("</svg>")
	return b.String()
}
