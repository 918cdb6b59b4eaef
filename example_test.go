package lode_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
)

// ExampleOpen embeds Lode on a data directory and uses it through the
// official Go driver.
func ExampleOpen() {
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
	jobs := db.Client().Database("work").Collection("jobs") // a *mongo.Collection
	if _, err := jobs.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}, {Key: "task", Value: "resize"}}); err != nil {
		log.Fatal(err)
	}
	var job struct {
		Task string `bson:"task"`
	}
	if err := jobs.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Decode(&job); err != nil {
		log.Fatal(err)
	}
	fmt.Println(job.Task)
	// Output: resize
}
