package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/migrate"
)

const migrateUsage = `usage: lode migrate --from URI --to URI [flags]

Moves a live deployment: opens a change stream on the source, copies every
database and collection (options, views, documents, then indexes) to the
target, then applies the source's changes until stopped (Ctrl-C), printing
the lag. The checkpoint is kept on the target (database lode_migrate): run
the same command again to resume. See docs/scale-out.md.

flags:
  --from URI|DIR      the source: a lode serve or MongoDB URI, or a Lode data
                      directory no server has open (opened embedded)
  --to URI            the target (any MongoDB deployment)
  --verify            only compare source and target (counts, document
                      hashes in _id order, indexes, dbHash where answered);
                      exits 1 on a difference
  --cutover           once caught up, make the source refuse writes
                      (setUserWriteBlockMode), apply the last changes,
                      verify, and print what to change in the application
  --dry-run           list what would be copied, write nothing
  --ns-include PAT    only namespaces matching db.coll pattern PAT (* is a
                      wildcard); repeatable
  --ns-exclude PAT    leave out namespaces matching PAT; repeatable
  --nsFrom PAT        rename: source namespace pattern with $var$ parts...
  --nsTo PAT          ...and its target, as mongorestore's; repeatable in pairs
  --drop              drop target collections in the way at a fresh start
  --workers N         concurrent insert batches per collection (default 4)
  --batch N           documents per insert batch (default 1000)
  --progress D        how often progress and lag are printed (default 2s)
`

// runMigrate implements `lode migrate`.
func runMigrate(args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), migrateUsage) }
	var cfg migrate.Config
	var include, exclude, nsFrom, nsTo multiFlag
	fs.StringVar(&cfg.From, "from", "", "source URI")
	fs.StringVar(&cfg.To, "to", "", "target URI")
	fs.BoolVar(&cfg.Verify, "verify", false, "only compare")
	fs.BoolVar(&cfg.Cutover, "cutover", false, "cut over once caught up")
	fs.BoolVar(&cfg.DryRun, "dry-run", false, "list what would be copied")
	fs.BoolVar(&cfg.Drop, "drop", false, "drop target collections in the way")
	fs.Var(&include, "ns-include", "namespace pattern to include")
	fs.Var(&exclude, "ns-exclude", "namespace pattern to exclude")
	fs.Var(&nsFrom, "nsFrom", "rename from")
	fs.Var(&nsTo, "nsTo", "rename to")
	fs.IntVar(&cfg.Workers, "workers", 4, "concurrent insert batches per collection")
	fs.IntVar(&cfg.BatchDocs, "batch", 1000, "documents per insert batch")
	fs.DurationVar(&cfg.Progress, "progress", 2*time.Second, "progress interval")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("migrate: unexpected argument %q", fs.Arg(0))
	}
	if cfg.From == "" || cfg.To == "" {
		return errors.New("migrate: --from and --to are required")
	}
	if cfg.From == cfg.To {
		return errors.New("migrate: --from and --to are the same deployment")
	}
	if !strings.HasPrefix(cfg.From, "mongodb://") && !strings.HasPrefix(cfg.From, "mongodb+srv://") {
		st, err := os.Stat(cfg.From)
		if err != nil || !st.IsDir() {
			return fmt.Errorf("migrate: --from %q is neither a mongodb:// URI nor a data directory", cfg.From)
		}
		db, err := lode.Open(cfg.From)
		if err != nil {
			return fmt.Errorf("migrate: open the source directory: %w", err)
		}
		defer db.Close()
		cfg.From = db.URI()
	}
	ns, err := migrate.NewNamespaces(include, exclude, nsFrom, nsTo)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	cfg.NS = ns
	cfg.Out = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := migrate.Run(ctx, cfg); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
