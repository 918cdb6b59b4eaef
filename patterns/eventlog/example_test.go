package eventlog_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/eventlog"
)

// Access log lines are parsed into typed events, stored, and counted per
// path and day.
func Example() {
	dir, err := os.MkdirTemp("", "lode-eventlog-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := lode.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()

	events := eventlog.New(db.Client().Database("logs").Collection("access"))
	if err := events.EnsureIndexes(ctx); err != nil {
		log.Fatal(err)
	}
	for _, line := range []string{
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`,
		`10.0.0.2 - - [10/Oct/2000:14:00:00 -0700] "GET /apache_pb.gif HTTP/1.1" 200 2326 "-" "curl/8.0"`,
	} {
		e, err := eventlog.ParseCombined(line)
		if err != nil {
			log.Fatal(err)
		}
		if err := events.Insert(ctx, e, eventlog.W1); err != nil {
			log.Fatal(err)
		}
	}
	from := time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC)
	hits, err := events.HitsPerPathPerDay(ctx, from, from.AddDate(0, 1, 0))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %d-%02d-%02d: %d hits\n", h.Path, h.Year, h.Month, h.Day, h.Hits)
	}
	// Output: /apache_pb.gif 2000-10-10: 2 hits
}
