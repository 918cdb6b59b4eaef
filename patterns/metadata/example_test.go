package metadata_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/metadata"
)

// Images carry their attributes as key/value pairs; Find matches every
// pair it is given, each within one element.
func Example() {
	dir, err := os.MkdirTemp("", "lode-metadata-example-")
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

	images := metadata.New(db.Client().Database("media").Collection("images"))
	if err := images.EnsureIndexes(ctx); err != nil {
		log.Fatal(err)
	}
	put := func(id string, pairs ...metadata.Pair) {
		if err := images.Put(ctx, id, pairs); err != nil {
			log.Fatal(err)
		}
	}
	put("img1", metadata.P("MIME type", "image/jpeg"), metadata.P("Flash", "No, auto"))
	put("img2", metadata.P("MIME type", "image/png"), metadata.P("Flash", "No, auto"))
	put("img3", metadata.P("MIME type", "image/jpeg"), metadata.P("Flash", "Yes"))

	found, err := images.Find(ctx, metadata.P("MIME type", "image/jpeg"), metadata.P("Flash", "No, auto"))
	if err != nil {
		log.Fatal(err)
	}
	for _, img := range found {
		fmt.Println(img.Lookup("_id").StringValue())
	}
	// Output: img1
}
