package advise

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
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

// WriteText writes the report as a table of the shapes with today's plan
// and figures per result, the proposed index with its predicted figures
// and estimated size, followed by the script of WriteMongosh: the
// proposals, unused and prefix indexes as comments and commands that
// paste into mongosh.
func (rep *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	// The shape comes last and whole: two pipelines may differ in their
	// last stage only.
	fmt.Fprintln(tw, "NAMESPACE\tRUNS\tTIME\tPLAN TODAY\tKEYS/RESULT\tDOCS/RESULT\tPROPOSED INDEX\tPREDICTED PLAN\tKEYS/RESULT\tDOCS/RESULT\tINDEX SIZE\tSHAPE")
	for _, r := range rep.Rows {
		share := fmt.Sprintf("%.1f%%", 100*r.TimeShare)
		shape := oneLine(strings.ReplaceAll(r.Shape, "\t", " "))
		if r.Index == nil {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t-\t%s\t\t\t\t%s\n", r.NS, r.ExecCount, share, r.Plan,
				fig(r.KeysPerResult), fig(r.DocsPerResult), r.Note, shape)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.NS, r.ExecCount, share, r.Plan,
			fig(r.KeysPerResult), fig(r.DocsPerResult), r.Index.JS(), r.PredictedPlan,
			fig(r.PredictedKeysPerResult), fig(r.PredictedDocsPerResult), bytesText(r.IndexBytes), shape)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("advise: write report: %w", err)
	}
	fmt.Fprintln(w)
	return rep.WriteMongosh(w)
}

// WriteMongosh writes the advice as a mongosh script: every line is a
// comment or a command (createIndex for a proposal, dropIndex for an
// unused index; the drop of an index with another role, and of a prefix
// index, stays a comment), so the whole text pastes into mongosh.
func (rep *Report) WriteMongosh(w io.Writer) error {
	t := rep.Thresholds
	bw := bufio.NewWriter(w)
	if t.MinRuns == 0 && t.MinShareRuns == 0 && t.MinShare == 0 {
		fmt.Fprintf(bw, "// proposed indexes (%d): for every query shape (no threshold of runs or time share)\n", len(rep.Proposals))
	} else {
		fmt.Fprintf(bw, "// proposed indexes (%d): for query shapes that ran at least %d times, or at least %d times and took at least %.1f%% of the execution time (--min-runs, --min-share-runs, --min-share)\n",
			len(rep.Proposals), t.MinRuns, t.MinShareRuns, 100*t.MinShare)
	}
	for _, p := range rep.Proposals {
		fmt.Fprintf(bw, "// %s: about %s, serves %d shape(s): %s\n", p.NS(), bytesText(p.IndexBytes), len(p.Shapes), oneLine(strings.Join(p.Shapes, "; ")))
		fmt.Fprintf(bw, "%s.createIndex(%s)\n", collJS(p.DB, p.Coll), p.Key.JS())
	}
	minObs := time.Duration(t.MinObservedMillis) * time.Millisecond
	if minObs > 0 {
		fmt.Fprintf(bw, "\n// unused indexes (%d): no operation used them during at least %s of observed running time (--min-observed)\n",
			len(rep.Unused), durText(minObs))
	} else {
		fmt.Fprintf(bw, "\n// unused indexes (%d): no operation used them (no minimum observed running time)\n", len(rep.Unused))
	}
	for _, u := range rep.Unused {
		fmt.Fprintf(bw, "// %s %s %s: 0 operations during %s\n", u.NS, u.Name, u.Key.JS(), window(u))
		db, coll, _ := strings.Cut(u.NS, ".")
		drop := fmt.Sprintf("%s.dropIndex(%s)", collJS(db, coll), JSString(u.Name))
		if u.Note != "" {
			fmt.Fprintf(bw, "// %s  (not proposed: %s)\n", drop, u.Note)
			continue
		}
		fmt.Fprintln(bw, drop)
	}
	if len(rep.Undecided) > 0 {
		fmt.Fprintf(bw, "\n// no verdict (%d): no operation used these indexes, but they were observed for less than %s (--min-observed); Lode saves the counters with its query statistics, so the window grows while the server runs\n",
			len(rep.Undecided), durText(minObs))
		for _, u := range rep.Undecided {
			fmt.Fprintf(bw, "// %s %s %s: 0 operations during %s\n", u.NS, u.Name, u.Key.JS(), window(u))
		}
	}
	fmt.Fprintf(bw, "\n// prefix indexes (%d): the longer index serves their queries\n", len(rep.Prefix))
	for _, p := range rep.Prefix {
		db, coll, _ := strings.Cut(p.NS, ".")
		fmt.Fprintf(bw, "// %s %s %s is a prefix of %s: %s.dropIndex(%s)\n", p.NS, p.Name, p.Key.JS(), p.PrefixOf, collJS(db, coll), JSString(p.Name))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("advise: write report: %w", err)
	}
	return nil
}

// collJS is the mongosh expression of a collection, valid for any name.
func collJS(db, coll string) string {
	return fmt.Sprintf("db.getSiblingDB(%s).getCollection(%s)", JSString(db), JSString(coll))
}

// window describes an index's observation window.
func window(u IndexRef) string {
	s := durText(time.Duration(u.ObservedMillis)*time.Millisecond) + " of running time"
	if u.Since != nil {
		s += " since " + u.Since.UTC().Format(time.RFC3339)
	}
	return s
}

// durText prints a duration in days, hours, minutes and seconds.
func durText(d time.Duration) string {
	d = d.Round(time.Second)
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	if days > 0 {
		return fmt.Sprintf("%dd%s", days, strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m"))
	}
	return d.String()
}

// oneLine keeps a comment on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ").Replace(s)
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
