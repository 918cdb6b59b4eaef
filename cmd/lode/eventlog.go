package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/patterns/eventlog"
)

// runEventlog implements `lode eventlog import FILE [--uri URI] [--db DB]
// [--coll COLL] [--w 0|1|j] [--batch N]`: it parses an Apache combined
// access log, inserts the events in unordered batches with a progress bar
// on stderr, and reports the lines it skipped.
func runEventlog(args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help") {
		fmt.Println(eventlogUsage)
		return nil
	}
	if len(args) == 0 || args[0] != "import" {
		return errors.New(eventlogUsage)
	}
	fs := flag.NewFlagSet("eventlog import", flag.ContinueOnError)
	fs.SetOutput(os.Stdout)
	setUsage(fs, "lode eventlog import FILE [flags]")
	uri := fs.String("uri", "mongodb://127.0.0.1:27017/?directConnection=true", "server URI")
	dbName := fs.String("db", "event_db", "database")
	collName := fs.String("coll", "events", "collection")
	w := fs.String("w", "1", "write concern: 0, 1 or j (journaled)")
	batch := fs.Int("batch", 1000, "events per insert")
	indexes := fs.Bool("indexes", true, "create the seed's indexes")
	timeseries := fs.Bool("timeseries", false, "store the events in a time series collection (timeField time, metaField host)")
	granularity := fs.String("granularity", "seconds", "with --timeseries: seconds, minutes or hours, the expected interval between one host's events")
	expire := fs.Duration("expire-after", 0, "with --timeseries: delete events this much older than now (e.g. 720h); 0 keeps them")
	// Accept the file before or after the flags.
	rest := args[1:]
	var file string
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		file, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); errors.Is(err, flag.ErrHelp) {
		return nil // the usage is printed
	} else if err != nil {
		return err
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	}
	if file == "" {
		return errors.New("eventlog import: FILE is required")
	}
	var dur eventlog.Durability
	switch *w {
	case "0":
		dur = eventlog.W0
	case "1":
		dur = eventlog.W1
	case "j":
		dur = eventlog.Journaled
	default:
		return fmt.Errorf("eventlog import: --w must be 0, 1 or j, not %q", *w)
	}
	if *batch < 1 {
		*batch = 1
	}
	if !*timeseries {
		var set []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "granularity" || f.Name == "expire-after" {
				set = append(set, "--"+f.Name)
			}
		})
		if len(set) > 0 {
			return fmt.Errorf("eventlog import: %s needs --timeseries", strings.Join(set, " and "))
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI(*uri))
	if err != nil {
		return fmt.Errorf("connect %s: %w", *uri, err)
	}
	defer client.Disconnect(ctx)
	log := eventlog.New(client.Database(*dbName).Collection(*collName))
	if *timeseries {
		log, err = eventlog.NewTimeSeries(ctx, client.Database(*dbName), *collName,
			eventlog.TimeSeriesOptions{Granularity: *granularity, ExpireAfter: *expire})
		if err != nil {
			return err
		}
	}
	if *indexes {
		if err := log.EnsureIndexes(ctx); err != nil {
			return err
		}
	}
	bar := &progress{out: os.Stderr, total: st.Size(), start: time.Now(), tty: isTTY(os.Stderr)}
	rd := &countingReader{r: f}
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var (
		pending          []eventlog.Event
		lineNo, inserted int
		failed           int
		skipped          []string
		nskipped         int
	)
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		n, err := log.InsertMany(ctx, eventlog.Events(pending), dur, false)
		inserted += n
		var bwe mongo.BulkWriteException
		if errors.As(err, &bwe) {
			failed += len(bwe.WriteErrors)
			err = nil
		}
		pending = pending[:0]
		return err
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		e, err := eventlog.ParseCombined(line)
		if err != nil {
			nskipped++
			if len(skipped) < 20 {
				skipped = append(skipped, fmt.Sprintf("  line %d, %v", lineNo, err))
			}
			continue
		}
		pending = append(pending, e)
		if len(pending) >= *batch {
			if err := flush(); err != nil {
				return err
			}
			bar.update(rd.n, inserted)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s at line %d: %w", file, lineNo+1, err)
	}
	if err := flush(); err != nil {
		return err
	}
	bar.update(rd.n, inserted)
	bar.finish()
	kind := ""
	if log.TimeSeries() {
		kind = " into a time series collection"
	}
	fmt.Printf("imported %d events%s from %d lines of %s in %v (w=%s)\n", inserted, kind, lineNo, file, time.Since(bar.start).Round(time.Millisecond), dur)
	if failed > 0 {
		fmt.Printf("%d events failed to insert\n", failed)
	}
	if nskipped > 0 {
		fmt.Printf("skipped %d lines that are not Apache combined log lines:\n", nskipped)
	}
	for _, s := range skipped {
		fmt.Println(s)
	}
	if nskipped > len(skipped) {
		fmt.Printf("  ... and %d more\n", nskipped-len(skipped))
	}
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// eventlogUsage is `lode eventlog --help`.
const eventlogUsage = `usage: lode eventlog import FILE [--uri mongodb://127.0.0.1:27017] [--db event_db] [--coll events] [--w 0|1|j] [--batch 1000] [--indexes=false]
                            [--timeseries [--granularity seconds|minutes|hours] [--expire-after 720h]]

Imports an Apache combined access log into the event log collection of
seed 003 (one document per request), with the seed's indexes. With
--timeseries the collection is a time series collection (timeField time,
metaField host), created if it does not exist: the server buckets the
events per host and compresses them, and only {host: 1, time: 1} is
created as an index.`

// progress draws a one-line bar on a terminal ([#####     ] 52% 1234
// events) and plain lines every few seconds elsewhere.
type progress struct {
	out   io.Writer
	total int64
	start time.Time
	last  time.Time
	tty   bool
	drawn bool
}

func (p *progress) update(done int64, events int) {
	every := 100 * time.Millisecond
	if !p.tty {
		every = 5 * time.Second // plain lines in a log: fewer
	}
	if time.Since(p.last) < every && done < p.total {
		return
	}
	p.last = time.Now()
	frac := 1.0
	if p.total > 0 {
		frac = float64(done) / float64(p.total)
	}
	if !p.tty {
		// A log file gets plain lines, not a bar redrawn with \r.
		fmt.Fprintf(p.out, "%d events imported, %.0f%% of the file read\n", events, frac*100)
		p.drawn = true
		return
	}
	const width = 30
	n := int(frac * width)
	bar := strings.Repeat("#", n) + strings.Repeat(" ", width-n)
	fmt.Fprintf(p.out, "\r[%s] %3.0f%% %d events", bar, frac*100, events)
	p.drawn = true
}

func (p *progress) finish() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.out)
	}
}

func isTTY(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
