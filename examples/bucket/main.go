// Command bucket appends trades to 10-item buckets and prints the pages (seed 001).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/bucket"
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
	s := bucket.New(db.Client().Database("app").Collection("trades"))
	for i := 0; i < 25; i++ {
		trade := map[string]any{"ticker": "MDB", "qty": i + 1, "date": time.Now()}
		if err := s.Append(ctx, "123", trade); err != nil {
			log.Fatal(err)
		}
	}
	pages, err := s.Pages(ctx, "123")
	if err != nil {
		log.Fatal(err)
	}
	for p := 1; p <= pages; p++ {
		items, err := s.Page(ctx, "123", p)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("page %d: %d trades, first qty %v\n", p, len(items), items[0].Lookup("qty"))
	}
}
