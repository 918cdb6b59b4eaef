package recent_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/recent"
)

// Latest returns the newest documents of some categories, newest first.
func Example() {
	dir, err := os.MkdirTemp("", "lode-recent-example-")
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

	news := db.Client().Database("news").Collection("docs")
	if err := recent.EnsureIndexes(ctx, news); err != nil { // {cat: 1, ts: -1}
		log.Fatal(err)
	}
	for ts := 0; ts < 10; ts++ {
		if _, err := news.InsertOne(ctx, bson.D{{Key: recent.CatField, Value: ts % 3}, {Key: recent.TSField, Value: ts}}); err != nil {
			log.Fatal(err)
		}
	}
	docs, err := recent.Latest(ctx, news, recent.CatField, []any{0, 2}, 3)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range docs {
		fmt.Println("cat", d.Lookup("cat").AsInt64(), "ts", d.Lookup("ts").AsInt64())
	}
	// Output:
	// cat 0 ts 9
	// cat 2 ts 8
	// cat 0 ts 6
}
