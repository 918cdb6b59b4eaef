package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/bsonutil"
)

// runBenchTimeseries implements `lode bench timeseries`: seed 003's events
// (--events evenly over --days days, --hosts hosts, --paths paths, the
// shared benchmark's generator and sizes) stored twice, in a plain
// collection with the seed's three indexes and in a time series
// collection (timeField time, metaField host), compared on what issue 34
// asks: the load's server CPU per event, storage (collStats storageSize
// plus totalIndexSize), the seed's hits-per-path-per-day pipeline (median
// wall and server CPU per query, the two collections alternating), and
// the buckets a one-day query reads (explain), without and then with an
// index on the time field.
//
// Server CPU is --pid's (the server process's, every thread) CPU-time
// clock (processCPU); embedded (no --uri) it is this process's, client
// included.
func runBenchTimeseries(args []string) error {
	fs := flag.NewFlagSet("bench timeseries", flag.ContinueOnError)
	setUsage(fs, "lode bench timeseries [flags]")
	nevents := fs.Int("events", 2_000_000, "events to load into each collection")
	days := fs.Int("days", 30, "days the events span")
	nhosts := fs.Int("hosts", 50, "distinct hosts (the time series collection's metaField)")
	npaths := fs.Int("paths", 1000, "distinct paths")
	batch := fs.Int("batch", 10_000, "insertMany batch size")
	runs := fs.Int("runs", 3, "runs of the pipeline on each collection (the median is reported)")
	uri := fs.String("uri", "", "a server to measure (default: embedded Lode in a temporary directory)")
	pid := fs.Int("pid", 0, "the server's process id, for its CPU (with --uri)")
	dbName := fs.String("db", "bench", "database")
	granularity := fs.String("granularity", "minutes", "the time series collection's granularity: seconds, minutes or hours (the defaults' events come about once a minute per host)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	var client *mongo.Client
	if *uri != "" {
		c, err := mongo.Connect(options.Client().ApplyURI(*uri))
		if err != nil {
			return err
		}
		defer c.Disconnect(ctx)
		client = c
		if *pid == 0 {
			return fmt.Errorf("bench timeseries: --uri needs --pid, the server's process id, for its CPU")
		}
	} else {
		tmp, err := os.MkdirTemp("", "lode-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		db, err := lode.Open(tmp)
		if err != nil {
			return err
		}
		defer db.Close()
		client = db.Client()
		*pid = os.Getpid()
		fmt.Println("# embedded: CPU figures are this process's, client included")
	}
	cpu := func() time.Duration { return processCPU(*pid) }
	db := client.Database(*dbName)
	plain, ts := db.Collection("events"), db.Collection("events_ts")
	for _, c := range []*mongo.Collection{plain, ts} {
		if err := c.Drop(ctx); err != nil {
			return err
		}
	}
	if err := db.CreateCollection(ctx, "events"); err != nil {
		return err
	}
	if err := db.CreateCollection(ctx, "events_ts", options.CreateCollection().SetTimeSeriesOptions(
		options.TimeSeries().SetTimeField("time").SetMetaField("host").SetGranularity(*granularity))); err != nil {
		return fmt.Errorf("create the time series collection: %w", err)
	}
	start := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 0, *days)
	var hosts, paths []string
	for i := 0; i < *nhosts; i++ {
		hosts = append(hosts, fmt.Sprintf("10.0.%d.%d", i/250, i%250+1))
	}
	for i := 0; i < *npaths; i++ {
		paths = append(paths, fmt.Sprintf("/site/section%02d/page%04d.html", i%37, i))
	}
	step := end.Sub(start) / time.Duration(*nevents)
	load := func(c *mongo.Collection) (wall, cpuPer time.Duration, err error) {
		r := rand.New(rand.NewPCG(1, 3))
		c0, t0 := cpu(), time.Now()
		docs := make([]any, 0, *batch)
		for i := 0; i < *nevents; i++ {
			b := bsoncore.NewDocumentBuilder().
				AppendDateTime("time", start.Add(time.Duration(i)*step).UnixMilli()).
				AppendString("host", hosts[r.IntN(len(hosts))]).
				AppendString("path", paths[r.IntN(len(paths))])
			docs = append(docs, bson.Raw(b.Build()))
			if len(docs) == *batch || i == *nevents-1 {
				if _, err := c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
					return 0, 0, err
				}
				docs = docs[:0]
			}
		}
		if c == plain {
			for _, k := range []bson.D{{{Key: "path", Value: 1}}, {{Key: "time", Value: 1}}, {{Key: "host", Value: 1}, {Key: "time", Value: 1}}} {
				if _, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: k}); err != nil {
					return 0, 0, err
				}
			}
		}
		return time.Since(t0), (cpu() - c0) / time.Duration(*nevents), nil
	}
	fmt.Printf("%d events over %d days, %d hosts, %d paths, insertMany batches of %d; time series granularity %s\n\n",
		*nevents, *days, *nhosts, *npaths, *batch, *granularity)
	fmt.Println("| collection | load s | server CPU µs/event | storageSize MB | totalIndexSize MB | storage + indexes MB | hits/path/day median ms | server CPU ms/query |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	type row struct {
		name          string
		wall, cpu     time.Duration
		storage, idx  float64
		times, cpus   []time.Duration
		groups, total int64
	}
	rows := []*row{{name: "plain, seed's 3 indexes"}, {name: "time series (meta host, " + *granularity + ")"}}
	for i, c := range []*mongo.Collection{plain, ts} {
		w, cp, err := load(c)
		if err != nil {
			return fmt.Errorf("load %s: %w", c.Name(), err)
		}
		rows[i].wall, rows[i].cpu = w, cp
		var st bson.Raw
		if st, err = db.RunCommand(ctx, bson.D{{Key: "collStats", Value: c.Name()}}).Raw(); err != nil {
			return fmt.Errorf("collStats %s: %w", c.Name(), err)
		}
		num := func(k string) float64 {
			v, _ := st.Lookup(k).AsFloat64OK()
			return v / 1e6
		}
		rows[i].storage, rows[i].idx = num("storageSize"), num("totalIndexSize")
	}
	pipe := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: start}, {Key: "$lt", Value: end}}}}}},
		{{Key: "$project", Value: bson.D{{Key: "path", Value: 1}, {Key: "year", Value: bson.D{{Key: "$year", Value: "$time"}}},
			{Key: "month", Value: bson.D{{Key: "$month", Value: "$time"}}}, {Key: "day", Value: bson.D{{Key: "$dayOfMonth", Value: "$time"}}}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "p", Value: "$path"}, {Key: "y", Value: "$year"}, {Key: "m", Value: "$month"}, {Key: "d", Value: "$day"}}},
			{Key: "hits", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
	for r := 0; r < *runs; r++ {
		for i, c := range []*mongo.Collection{plain, ts} {
			c0, t0 := cpu(), time.Now()
			cur, err := c.Aggregate(ctx, pipe)
			if err != nil {
				return fmt.Errorf("hits per path per day on %s: %w", c.Name(), err)
			}
			var groups, hits int64
			for cur.Next(ctx) {
				groups++
				n, _ := cur.Current.Lookup("hits").AsInt64OK()
				hits += n
			}
			if err := cur.Err(); err != nil {
				return err
			}
			cur.Close(ctx)
			rows[i].times = append(rows[i].times, time.Since(t0))
			rows[i].cpus = append(rows[i].cpus, cpu()-c0)
			rows[i].groups, rows[i].total = groups, hits
		}
	}
	for _, r := range rows {
		slices.Sort(r.times)
		var sum time.Duration
		for _, c := range r.cpus {
			sum += c
		}
		fmt.Printf("| %s | %.1f | %.2f | %.1f | %.1f | %.1f | %.0f | %.0f |\n", r.name, r.wall.Seconds(), float64(r.cpu.Nanoseconds())/1000,
			r.storage, r.idx, r.storage+r.idx, ms(r.times[len(r.times)/2]), ms(sum/time.Duration(len(r.cpus))))
	}
	if rows[0].total != int64(*nevents) || rows[1].total != int64(*nevents) || rows[0].groups != rows[1].groups {
		return fmt.Errorf("the pipelines disagree: plain %d groups %d hits, time series %d groups %d hits, %d events",
			rows[0].groups, rows[0].total, rows[1].groups, rows[1].total, *nevents)
	}
	fmt.Printf("\nboth pipelines: %d groups, %d hits\n", rows[0].groups, rows[0].total)
	fmt.Printf("time series storage + indexes / plain: %.2f; pipeline wall time series / plain: %.2f; load server CPU per event time series / plain: %.2f\n",
		(rows[1].storage+rows[1].idx)/(rows[0].storage+rows[0].idx), ms(rows[1].times[len(rows[1].times)/2])/ms(rows[0].times[len(rows[0].times)/2]),
		float64(rows[1].cpu)/float64(rows[0].cpu))

	// A one-day query: the buckets it reads against the buckets of that day.
	day := start.AddDate(0, 0, *days/2)
	dayFilter := bson.D{{Key: "time", Value: bson.D{{Key: "$gte", Value: day}, {Key: "$lt", Value: day.AddDate(0, 0, 1)}}}}
	explain := func() (bson.Raw, error) {
		ex, err := db.RunCommand(ctx, bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "events_ts"}, {Key: "filter", Value: dayFilter}}},
			{Key: "verbosity", Value: "executionStats"}}).Raw()
		if err != nil {
			return nil, fmt.Errorf("explain the one-day query: %w", err)
		}
		return ex, nil
	}
	ex, err := explain()
	if err != nil {
		return err
	}
	buckets := db.Collection("system.buckets.events_ts")
	all, err := buckets.CountDocuments(ctx, bson.D{})
	if err != nil {
		return err
	}
	overlap, err := buckets.CountDocuments(ctx, bson.D{{Key: "control.min.time", Value: bson.D{{Key: "$lt", Value: day.AddDate(0, 0, 1)}}},
		{Key: "control.max.time", Value: bson.D{{Key: "$gte", Value: day}}}})
	if err != nil {
		return err
	}
	n, _ := plain.CountDocuments(ctx, dayFilter)
	examined := bsonutil.FirstInt(ex, "totalDocsExamined")
	fmt.Printf("one-day query (%s): %d events; buckets examined %d of %d (the buckets overlapping that day: %d); keys examined %d\n",
		day.Format("2006-01-02"), n, examined, all, overlap, bsonutil.FirstInt(ex, "totalKeysExamined"))
	// Again with the secondary index on the time field that MongoDB
	// advises for time range queries (on the buckets, control.min and
	// control.max of the time field).
	if _, err := db.Collection("events_ts").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "time", Value: 1}}}); err != nil {
		return fmt.Errorf("create the time index: %w", err)
	}
	if ex, err = explain(); err != nil {
		return err
	}
	var st struct {
		IndexSizes map[string]int64 `bson:"indexSizes"`
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "collStats", Value: "events_ts"}}).Decode(&st); err != nil {
		return err
	}
	fmt.Printf("with the index {time: 1} (%.1f MB): buckets examined %d; keys examined %d\n",
		float64(st.IndexSizes["time_1"])/1e6, bsonutil.FirstInt(ex, "totalDocsExamined"), bsonutil.FirstInt(ex, "totalKeysExamined"))
	return nil
}
