package report

import (
	"fmt"
	"html"
	"math"
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

// niceMax rounds v up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func fmtTick(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1000:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2g", v)
	}
}

// frame draws the chart's box, title, axis labels and ticks; it returns
// the builder and the functions mapping data to pixels.
func frame(title, xLabel, yLabel string, xmax, ymax float64, xticks bool) (*strings.Builder, func(float64) float64, func(float64) float64) {
	var b strings.Builder
	pw, ph := float64(chartW-padL-padR), float64(chartH-padT-padB)
	fx := func(x float64) float64 { return padL + x/xmax*pw }
	fy := func(y float64) float64 { return padT + ph - y/ymax*ph }
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" class="chart">`, chartW, chartH, chartW, chartH)
	fmt.Fprintf(&b, `<text x="%d" y="16" class="title">%s</text>`, padL, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		y := ymax * float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>`, padL, chartW-padR, fy(y), fy(y))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`, padL-4, fy(y)+4, fmtTick(y))
		if !xticks {
			continue
		}
		x := xmax * float64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`, fx(x), chartH-padB+14, fmtTick(x))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" class="box"/>`, padL, padT, pw, ph)
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" class="label" text-anchor="middle">%s</text>`, padL+pw/2, chartH-padB+30, html.EscapeString(xLabel))
	fmt.Fprintf(&b, `<text x="12" y="%.0f" class="label" text-anchor="middle" transform="rotate(-90 12 %.0f)">%s</text>`, padT+ph/2, padT+ph/2, html.EscapeString(yLabel))
	return &b, fx, fy
}

// lineChart draws series as polylines with a legend.
func lineChart(title, xLabel, yLabel string, ss []series) string {
	xmax, ymax := 1.0, 0.0
	for _, s := range ss {
		for i := range s.xs {
			xmax = math.Max(xmax, s.xs[i])
			ymax = math.Max(ymax, s.ys[i])
		}
	}
	ymax = niceMax(ymax * 1.05)
	b, fx, fy := frame(title, xLabel, yLabel, xmax, ymax, true)
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
	ymax = niceMax(ymax * 1.05)
	n := max(len(bars), 1)
	b, _, fy := frame(title, xLabel, yLabel, float64(n), ymax, false)
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
