package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/advise"
)

const adviseUsage = `usage: lode advise (--dir DIR | --uri URI) [flags]

Reads the server's query shape statistics ($queryStats), proposes indexes
by the equality-sort-range rule for the shapes that ran often enough,
costs each with a hypothetical index and prints: shape, runs, share of
the execution time, today's plan and keys/docs examined per result,
proposed index, the predicted figures with it and its estimated size.
Then, as a script that pastes into mongosh: the createIndex commands, the
dropIndex commands of indexes no operation used during --min-observed of
running time ($indexStats; Lode saves these counters with its query
statistics, so a stopped directory keeps them), the unused indexes
observed for less (no verdict), and indexes that are a prefix of another.

flags:
  --dir DIR     open the Lode data directory DIR (embedded; not while a server runs on it)
  --uri URI     connect to a running server
  --db DB       only this database
  --coll COLL   only collections named COLL
  --json        print the report as JSON
  --apply       build the proposed indexes (createIndexes) and print them
  --stats FILE  read the $queryStats documents from FILE (extended JSON: an
                array, or one document per line) instead of the server
  --mongosh     print only the mongosh script (no table)
  --min-runs N  propose an index for a shape that ran at least N times (default 100)
  --min-share-runs N, --min-share PCT
                or that ran at least N times (default 10) and took at least
                PCT percent of the execution time (default 5)
  --min-observed DURATION
                call an index unused only when no operation used it during
                at least this much server running time (default 168h)
`

// runAdvise implements `lode advise`, writing the report to stdout.
func runAdvise(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("advise", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), adviseUsage) }
	dir := fs.String("dir", "", "Lode data directory (embedded)")
	uri := fs.String("uri", "", "server URI")
	dbName := fs.String("db", "", "only this database")
	coll := fs.String("coll", "", "only collections with this name")
	asJSON := fs.Bool("json", false, "JSON output")
	apply := fs.Bool("apply", false, "build the proposed indexes")
	statsFile := fs.String("stats", "", "read $queryStats documents from this file")
	script := fs.Bool("mongosh", false, "print only the mongosh script")
	minRuns := fs.Int64("min-runs", advise.DefaultMinRuns, "runs that qualify a shape")
	minShareRuns := fs.Int64("min-share-runs", advise.DefaultMinShareRuns, "runs that qualify a shape with --min-share")
	minShare := fs.Float64("min-share", 100*advise.DefaultMinShare, "percent of the execution time that qualifies a shape")
	minObserved := fs.Duration("min-observed", advise.DefaultMinObserved, "running time before an index is called unused")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("advise: unexpected argument %q", fs.Arg(0))
	}
	if *asJSON && *script {
		return errors.New("advise: give at most one of --json and --mongosh")
	}
	if *minRuns < 0 || *minShareRuns < 0 || *minShare < 0 || *minShare > 100 || *minObserved < 0 {
		return errors.New("advise: --min-runs, --min-share-runs and --min-observed must not be negative, --min-share is a percentage")
	}
	if (*dir == "") == (*uri == "") {
		return errors.New("advise: give exactly one of --dir and --uri")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var client *mongo.Client
	if *dir != "" {
		db, err := lode.Open(*dir)
		if err != nil {
			return fmt.Errorf("advise: open %s: %w", *dir, err)
		}
		defer db.Close()
		client = db.Client()
	} else {
		c, err := mongo.Connect(options.Client().ApplyURI(*uri))
		if err != nil {
			return fmt.Errorf("advise: connect %s: %w", *uri, err)
		}
		defer c.Disconnect(context.Background())
		client = c
	}
	src := advise.QueryStatsSource(client)
	if *statsFile != "" {
		docs, err := readStatsFile(*statsFile)
		if err != nil {
			return err
		}
		src = func(context.Context) ([]bson.Raw, error) { return docs, nil }
	}
	rep, err := advise.Run(ctx, client, src, advise.Options{DB: *dbName, Coll: *coll,
		MinRuns: *minRuns, MinShareRuns: *minShareRuns, MinShare: *minShare / 100, MinObserved: *minObserved})
	if err != nil {
		return err
	}
	if *apply {
		built, err := advise.Apply(ctx, client, rep)
		rep.Built = built
		if err != nil {
			return err
		}
	}
	if *asJSON {
		return rep.WriteJSON(stdout)
	}
	write := rep.WriteText
	if *script {
		write = rep.WriteMongosh
	}
	if err := write(stdout); err != nil {
		return err
	}
	if *apply {
		fmt.Fprintf(stdout, "\n// built %d index(es):\n", len(rep.Built))
		for i, name := range rep.Built {
			p := rep.Proposals[i]
			fmt.Fprintf(stdout, "//   %s  %s %s\n", p.NS(), name, p.Key.JS())
		}
	}
	return nil
}

// readStatsFile reads $queryStats documents in extended JSON: an array of
// documents, or one document per line.
func readStatsFile(path string) ([]bson.Raw, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("advise: %w", err)
	}
	data = bytes.TrimSpace(data)
	if bytes.HasPrefix(data, []byte("[")) {
		var wrap struct {
			Docs []bson.Raw `bson:"docs"`
		}
		doc := append(append([]byte(`{"docs":`), data...), '}')
		if err := bson.UnmarshalExtJSON(doc, false, &wrap); err != nil {
			return nil, fmt.Errorf("advise: %s: %w", path, err)
		}
		return wrap.Docs, nil
	}
	var out []bson.Raw
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		var d bson.Raw
		if err := bson.UnmarshalExtJSON(l, false, &d); err != nil {
			return nil, fmt.Errorf("advise: %s:%d: %w", path, line, err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("advise: %s: %w", path, err)
	}
	return out, nil
}
