// Command eventlog parses access-log lines, stores them and counts hits per path per day (seed 003).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/eventlog"
)

func main() {
	dir, err := os.MkdirTemp("", "lode-example-")
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
	l := eventlog.New(db.Client().Database("event_db").Collection("events"))
	if err := l.EnsureIndexes(ctx); err != nil {
		log.Fatal(err)
	}
	lines := []string{
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`,
		`10.0.0.2 - - [10/Oct/2000:14:00:00 -0700] "GET /index.html HTTP/1.1" 200 512 "-" "curl/8"`,
		`10.0.0.2 - - [11/Oct/2000:09:00:00 -0700] "GET /index.html HTTP/1.1" 304 - "-" "curl/8"`,
		`not a log line`,
	}
	var events []eventlog.Event
	for i, line := range lines {
		e, err := eventlog.ParseCombined(line)
		if err != nil {
			fmt.Printf("line %d skipped: %v\n", i+1, err)
			continue
		}
		events = append(events, e)
	}
	if _, err := l.InsertMany(ctx, eventlog.Events(events), eventlog.Journaled, false); err != nil {
		log.Fatal(err)
	}
	hits, err := l.HitsPerPathPerDay(ctx, time.Date(2000, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2000, 11, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%-15s %d-%02d-%02d %d\n", h.Path, h.Year, h.Month, h.Day, h.Hits)
	}
}
