// Command recent loads events in 20 categories and finds the most recent ones (seed 000).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/recent"
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
	coll := db.Client().Database("news").Collection("docs")
	if err := recent.EnsureIndexes(ctx, coll); err != nil {
		log.Fatal(err)
	}
	var docs []any
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 20000; i++ {
		at = at.Add(time.Duration(i%7) * time.Second)
		docs = append(docs, bson.D{{Key: "cat", Value: i % 20}, {Key: "ts", Value: at}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		log.Fatal(err)
	}
	cats := []any{1, 5, 9}
	latest, err := recent.Latest(ctx, coll, "cat", cats, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range latest {
		fmt.Println("latest:", d.Lookup("cat"), d.Lookup("ts"))
	}
	res, err := recent.Search(ctx, coll, cats, 1000, 1050)
	if err != nil {
		log.Fatal(err)
	}
	since, _ := recent.Since(res)
	fmt.Printf("FindRecent: %d documents newer than %v, found with %d counts\n", res.Count, since.Format(time.RFC3339), res.Counts)
}
