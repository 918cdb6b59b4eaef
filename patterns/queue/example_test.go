package queue_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/queue"
)

// Jobs are published with a priority and claimed highest priority first;
// a claimed job is finished through its claim.
func Example() {
	dir, err := os.MkdirTemp("", "lode-queue-example-")
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

	q := queue.New(db.Client().Database("work").Collection("jobs"))
	if err := q.EnsureIndexes(ctx, 24*time.Hour); err != nil {
		log.Fatal(err)
	}
	for prio, task := range []string{"resize", "upload", "thumbnail"} {
		if _, err := q.Publish(ctx, bson.D{{Key: "task", Value: task}}, prio); err != nil {
			log.Fatal(err)
		}
	}
	for range 2 {
		j, err := q.NextByPriority(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(j.Payload.Lookup("task").StringValue(), j.Priority)
		if err := q.FinishClaim(ctx, j); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// thumbnail 2
	// upload 1
}
