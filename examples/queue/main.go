// Command queue publishes jobs, runs a worker pool on them, and uses a topic (seed 004).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/patterns/queue"
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
	q := queue.New(db.Client().Database("work").Collection("queue"))
	if err := q.EnsureIndexes(ctx, 24*time.Hour); err != nil {
		log.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		payload := bson.D{{Key: "type", Value: "convertImage"}, {Key: "source", Value: fmt.Sprintf("/images/%d.png", i)}}
		if _, err := q.Publish(ctx, payload, i%3); err != nil {
			log.Fatal(err)
		}
	}
	var done atomic.Int32
	wctx, stop := context.WithCancel(ctx)
	w := &queue.Worker{Queue: q, Concurrency: 4, VisibilityTimeout: 5 * time.Second, ByPriority: true,
		Handler: func(ctx context.Context, j *queue.Job) error {
			fmt.Println("converting", j.Payload.Lookup("source"), "priority", j.Priority)
			if done.Add(1) == 10 {
				stop()
			}
			return nil
		}}
	_ = w.Run(wctx)

	topic, err := queue.NewTopic(ctx, db.Client().Database("work"), "news", 1<<20)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range []string{"hello", "world"} {
		if _, err := topic.Publish(ctx, m); err != nil {
			log.Fatal(err)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	n := 0
	_ = topic.Subscribe(sctx, bson.ObjectID{}, func(_ bson.ObjectID, msg bson.RawValue) error {
		fmt.Println("message:", msg.StringValue())
		if n++; n == 2 {
			cancel()
		}
		return nil
	})
}
