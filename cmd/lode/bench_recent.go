package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode"
)

// runBench implements `lode bench recent`: seed 000's experiment. It loads
// --docs documents {cat, ts} over --cats categories with the index
// {cat:1, ts:-1} (timing the load), then for each n runs
// find({cat: {$in: <--in categories>}}).sort({ts:-1}).limit(n), draining
// every document to the client, with SORT_MERGE and with the explosion
// turned off (blocking SORT), and prints the medians as a Markdown table.
func runBench(args []string) error {
	const use = "usage: lode bench recent [--docs 5000000] [--cats 100] [--in 10] [--runs 5] [--dir DIR] [--uri URI]\n" +
		"       lode bench timeseries [--events 2000000] [--runs 3] [--uri URI --pid PID]"
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Println(use)
		return nil
	}
	if len(args) > 0 && args[0] == "timeseries" {
		return runBenchTimeseries(args[1:])
	}
	if len(args) == 0 || args[0] != "recent" {
		return errors.New(use)
	}
	fs := flag.NewFlagSet("bench recent", flag.ContinueOnError)
	setUsage(fs, "lode bench recent [flags]")
	docs := fs.Int("docs", 5000000, "documents to load")
	cats := fs.Int("cats", 100, "categories")
	inN := fs.Int("in", 10, "categories in $in")
	runs := fs.Int("runs", 5, "runs per measurement (median reported)")
	dir := fs.String("dir", "", "data directory for embedded Lode (default: a temporary one)")
	uri := fs.String("uri", "", "benchmark a server at this URI instead of embedded Lode")
	ns := fs.String("n", "100,1000,10000,25000,50000,75000,100000", "limits to measure")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	var limits []int64
	for _, part := range splitComma(*ns) {
		var v int64
		if _, err := fmt.Sscan(part, &v); err != nil {
			return fmt.Errorf("bad --n %q", part)
		}
		limits = append(limits, v)
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
	} else {
		d := *dir
		if d == "" {
			tmp, err := os.MkdirTemp("", "lode-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			d = tmp
		}
		db, err := lode.Open(d)
		if err != nil {
			return err
		}
		defer db.Close()
		client = db.Client()
	}
	coll := client.Database("bench").Collection("docs")
	if err := coll.Drop(ctx); err != nil {
		return err
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "cat", Value: 1}, {Key: "ts", Value: -1}}}); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(0, 0))
	start := time.Now()
	batch := make([]any, 0, 10000)
	for i := 0; i < *docs; i++ {
		batch = append(batch, bson.D{{Key: "cat", Value: rng.IntN(*cats)}, {Key: "ts", Value: i}})
		if len(batch) == cap(batch) || i == *docs-1 {
			if _, err := coll.InsertMany(ctx, batch, options.InsertMany().SetOrdered(false)); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	load := time.Since(start)
	fmt.Printf("loaded %d documents with index {cat:1, ts:-1} in %.1f s (%.0f docs/s)\n\n", *docs, load.Seconds(), float64(*docs)/load.Seconds())
	in := bson.A{}
	for _, c := range rng.Perm(*cats)[:*inN] {
		in = append(in, c)
	}
	filter := bson.D{{Key: "cat", Value: bson.D{{Key: "$in", Value: in}}}}
	admin := client.Database("admin")
	setExplode := func(v int) error {
		return admin.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "internalQueryMaxScansToExplode", Value: v}}).Err()
	}
	measure := func(n int64) (time.Duration, int, error) {
		var times []time.Duration
		got := 0
		for r := 0; r < *runs; r++ {
			t0 := time.Now()
			cur, err := coll.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "ts", Value: -1}}).SetLimit(n).SetBatchSize(10000).SetAllowDiskUse(true))
			if err != nil {
				return 0, 0, err
			}
			got = 0
			for cur.Next(ctx) {
				got++
			}
			if err := cur.Err(); err != nil {
				return 0, 0, err
			}
			cur.Close(ctx)
			times = append(times, time.Since(t0))
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		return times[len(times)/2], got, nil
	}
	fmt.Println("| n | SORT_MERGE median ms | blocking SORT median ms | docs returned |")
	fmt.Println("|---:|---:|---:|---:|")
	for _, n := range limits {
		if err := setExplode(200); err != nil {
			return err
		}
		merge, got, err := measure(n)
		if err != nil {
			return err
		}
		if err := setExplode(0); err != nil {
			return err
		}
		blocking, got2, err := measure(n)
		if err != nil {
			return err
		}
		if got != got2 {
			return fmt.Errorf("n=%d: SORT_MERGE returned %d documents, SORT %d", n, got, got2)
		}
		fmt.Printf("| %d | %.1f | %.1f | %d |\n", n, ms(merge), ms(blocking), got)
	}
	return setExplode(200)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
