package migrate_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestMigrateUniqueKeysMovingUnderLoad: documents hand a unique key on
// to each other while the copy and the catch-up run, so the copy as read
// and the changes as replayed hold two documents with one key for a
// while; the migration still ends, after its cutover, with the unique
// index built and the documents exactly as on the source.
func TestMigrateUniqueKeysMovingUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := testenv.Ctx(t)
	src, dst := startServer(t, "src"), startServer(t, "dst")
	sc, dc := src.client(t), dst.client(t)
	coll := sc.Database("u").Collection("keys")
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "k", Value: 1}}, Options: options.Index().SetUnique(true)}); err != nil {
		t.Fatal(err)
	}
	testenv.InsertBatches(t, sc.Database("u").Collection("filler"), 20000, func(i int) any { return bson.D{{Key: "_id", Value: i}} })
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("%d-%d", w, i)
				// a takes the key, gives it up, b takes it.
				if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: "a" + key}, {Key: "k", Value: key}}); err != nil {
					if !isBlocked(err) {
						t.Error(err)
					}
					return
				}
				if _, err := coll.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "a" + key}}, bson.D{{Key: "$set", Value: bson.D{{Key: "k", Value: "was " + key}}}}); err != nil {
					if !isBlocked(err) {
						t.Error(err)
					}
					return
				}
				if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: "b" + key}, {Key: "k", Value: key}}); err != nil {
					if !isBlocked(err) {
						t.Error(err)
					}
					return
				}
				time.Sleep(3 * time.Millisecond) // a paced load the catch-up keeps up with on a busy machine
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	time.Sleep(200 * time.Millisecond)
	m := startMigrate(t, src, dst)
	m.waitFor("copy done", time.Minute)
	time.Sleep(time.Second)
	m.stop()
	c := startMigrate(t, src, dst, "--cutover")
	if err := c.wait(2 * time.Minute); err != nil {
		t.Fatalf("cutover: %v\n%s\n%s", err, m.out, c.out)
	}
	sameData(t, ctx, sc, dc)
	if n := testenv.Count(t, dc.Database("u").Collection("keys"), bson.D{}); n < 100 {
		t.Errorf("only %d documents moved under load", n)
	}
}
