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

// A subscriber follows a topic by change stream, keeps the resume token
// of the last message it handled, and continues from it later.
func ExampleTopic_Changes() {
	dir, err := os.MkdirTemp("", "lode-topic-example-")
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

	topic := queue.TopicOn(db.Client().Database("app").Collection("news")) // any collection
	sub, err := topic.Changes(ctx, queue.ChangeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range []string{"hello", "world", "again"} {
		if _, err := topic.Publish(ctx, m); err != nil {
			log.Fatal(err)
		}
	}
	ch, err := sub.Next(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ch.Msg.StringValue())
	saved := ch.Token // store it with the work the message caused
	sub.Close(ctx)

	// Later, or after a restart: continue right after the saved message.
	sub, err = topic.Changes(ctx, queue.ChangeOptions{ResumeAfter: saved})
	if err != nil {
		log.Fatal(err)
	}
	defer sub.Close(ctx)
	for range 2 {
		ch, err := sub.Next(ctx)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ch.Msg.StringValue())
	}
	// Output:
	// hello
	// world
	// again
}
