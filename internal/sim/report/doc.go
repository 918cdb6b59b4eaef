// Package report writes a sim.Report as the terminal table, report.json
// and a self-contained report.html whose charts are inline SVG drawn in
// Go (nothing is fetched when the page is viewed).
package report
