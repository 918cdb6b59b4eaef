package bucket_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/bucket"
)

// An owner's trades are appended to buckets of two items; page 3 holds
// the fifth.
func Example() {
	dir, err := os.MkdirTemp("", "lode-bucket-example-")
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

	trades := bucket.New(db.Client().Database("stock").Collection("trades"), bucket.WithSize(2))
	for qty := 1; qty <= 5; qty++ {
		if err := trades.Append(ctx, "123", bson.D{{Key: "type", Value: "buy"}, {Key: "qty", Value: qty}}); err != nil {
			log.Fatal(err)
		}
	}
	pages, err := trades.Pages(ctx, "123")
	if err != nil {
		log.Fatal(err)
	}
	last, err := trades.Page(ctx, "123", pages)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pages, "pages; the last holds", last)
	// Output: 3 pages; the last holds [{"type": "buy","qty": {"$numberInt":"5"}}]
}
