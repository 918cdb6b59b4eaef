package migrate

import (
	"context"
	"fmt"
)

// dryRun lists what a move would copy: each namespace with its kind,
// estimated document count, options and index count, and its target.
func (m *Migration) dryRun(ctx context.Context) error {
	colls, err := m.listNamespaces(ctx)
	if err != nil {
		return fmt.Errorf("list the source's collections: %w", err)
	}
	var docs int64
	for _, ci := range colls {
		to := ""
		if ci.tns() != ci.ns() {
			to = " -> " + ci.tns()
		}
		switch ci.Type {
		case "view":
			fmt.Fprintf(m.cfg.Out, "view        %s%s  %s\n", ci.ns(), to, ci.Options)
		default:
			specs, err := indexSpecs(ctx, m.src, ci.DB, ci.Coll)
			if err != nil {
				return err
			}
			opts := ""
			if len(ci.Options) > 5 {
				opts = "  options " + ci.Options.String()
			}
			fmt.Fprintf(m.cfg.Out, "%-11s %s%s  ~%d documents, %d index(es) besides _id%s\n", ci.Type, ci.ns(), to, ci.Count, len(specs), opts)
			docs += ci.Count
		}
	}
	fmt.Fprintf(m.cfg.Out, "dry run: %d namespace(s), ~%d documents would be copied; nothing was written\n", len(colls), docs)
	return nil
}
