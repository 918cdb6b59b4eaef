// Command metadata stores image metadata as key/value pairs and queries it (seed 002).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/metadata"
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
	s := metadata.New(db.Client().Database("supershot").Collection("images"))
	if err := s.EnsureIndexes(ctx); err != nil {
		log.Fatal(err)
	}
	err = s.Put(ctx, "img_1771", []metadata.Pair{
		metadata.P("MIME type", "image/jpeg"),
		metadata.P("Image size", metadata.Size{Width: 480, Height: 360}),
		metadata.P("Image timestamp", time.Date(2014, 1, 1, 10, 1, 0, 0, time.UTC)),
		metadata.P("Flash", "No, auto"),
	})
	if err != nil {
		log.Fatal(err)
	}
	found, err := s.Find(ctx,
		metadata.P("MIME type", "image/jpeg"),
		metadata.P("Image size", metadata.Size{Width: 480, Height: 360}))
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range found {
		fmt.Println("found", d.Lookup("_id"))
	}
}
