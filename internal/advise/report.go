package advise

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteJSON writes the report as indented JSON.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("advise: write JSON: %w", err)
	}
	return nil
}

// WriteText writes the report as tables: the shapes with today's plan and
// figures per result, the proposed index with its predicted figures and
// estimated size; then the proposals, unused and prefix indexes.
func (rep *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAMESPACE\tSHAPE\tRUNS\tPLAN TODAY\tKEYS/RESULT\tDOCS/RESULT\tPROPOSED INDEX\tPREDICTED PLAN\tKEYS/RESULT\tDOCS/RESULT\tINDEX SIZE")
	for _, r := range rep.Rows {
		if r.Index == nil {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t-\t%s\t\t\t\n", r.NS, clip(r.Shape, 70), r.ExecCount, r.Plan,
				fig(r.KeysPerResult), fig(r.DocsPerResult), r.Note)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.NS, clip(r.Shape, 70), r.ExecCount, r.Plan,
			fig(r.KeysPerResult), fig(r.DocsPerResult), r.Index, r.PredictedPlan,
			fig(r.PredictedKeysPerResult), fig(r.PredictedDocsPerResult), bytesText(r.IndexBytes))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("advise: write report: %w", err)
	}
	fmt.Fprintf(w, "\nproposed indexes (%d):\n", len(rep.Proposals))
	for _, p := range rep.Proposals {
		fmt.Fprintf(w, "  %s  createIndex(%s)  ~%s  for %d shape(s)\n", p.NS(), p.Key, bytesText(p.IndexBytes), len(p.Shapes))
	}
	fmt.Fprintf(w, "\nunused indexes (%d):\n", len(rep.Unused))
	for _, u := range rep.Unused {
		note := ""
		if u.Note != "" {
			note = "  (" + u.Note + ")"
		}
		fmt.Fprintf(w, "  %s  %s %s  accesses.ops 0%s\n", u.NS, u.Name, u.Key, note)
	}
	fmt.Fprintf(w, "\nprefix indexes (%d):\n", len(rep.Prefix))
	for _, p := range rep.Prefix {
		fmt.Fprintf(w, "  %s  %s %s  is a prefix of %s\n", p.NS, p.Name, p.Key, p.PrefixOf)
	}
	return nil
}

func fig(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\t", " ")
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
