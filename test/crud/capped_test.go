package crud_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

func naturalIDs(t *testing.T, coll *mongo.Collection, dir int) []int {
	t.Helper()
	cur, err := coll.Find(context.Background(), bson.D{}, options.Find().SetSort(bson.D{{Key: "$natural", Value: dir}}))
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID int `bson:"_id"`
	}
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

func TestCappedMaxKeepsNewestInOrder(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := testenv.CreateCapped(t, d, "log", 1<<20, 5)
	// Insert in a non-sorted _id order: insertion order must win.
	ids := []int{9, 3, 7, 1, 8, 2, 6, 4}
	for _, id := range ids {
		if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: id}}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := fmt.Sprint(naturalIDs(t, coll, 1)), fmt.Sprint([]int{1, 8, 2, 6, 4}); got != want {
		t.Fatalf("forward: got %s want %s", got, want)
	}
	if got, want := fmt.Sprint(naturalIDs(t, coll, -1)), fmt.Sprint([]int{4, 6, 2, 8, 1}); got != want {
		t.Fatalf("reverse: got %s want %s", got, want)
	}
	// A batch insert larger than max keeps only the last max documents.
	var batch []any
	for i := 100; i < 112; i++ {
		batch = append(batch, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := coll.InsertMany(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(naturalIDs(t, coll, 1)), fmt.Sprint([]int{107, 108, 109, 110, 111}); got != want {
		t.Fatalf("after batch: got %s want %s", got, want)
	}
}

func TestCappedSizeLimit(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := testenv.CreateCapped(t, d, "sized", 1000, 0)
	pad := string(make([]byte, 80))
	for i := 0; i < 100; i++ {
		if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}, {Key: "p", Value: pad}}); err != nil {
			t.Fatal(err)
		}
	}
	ids := naturalIDs(t, coll, 1)
	// Each document is 101 bytes: at most 9 fit in 1000 bytes.
	if len(ids) != 9 || ids[0] != 91 || ids[8] != 99 {
		t.Fatalf("got %v", ids)
	}
}

func TestCappedUpdateCannotGrow(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := testenv.CreateCapped(t, d, "c", 4096, 0)
	if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: 1}, {Key: "s", Value: "abc"}}); err != nil {
		t.Fatal(err)
	}
	// Same size: allowed.
	if _, err := coll.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "xyz"}}}}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "a much longer string"}}}})
	var we mongo.WriteException
	if !errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 10003 {
		t.Fatalf("want write error 10003, got %v", err)
	}
	// Deleting one document of a capped collection is allowed (MongoDB 5.0+).
	res, err := coll.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: 1}})
	if err != nil || res.DeletedCount != 1 {
		t.Fatalf("delete: %v %v", res, err)
	}
}

func TestTailableRequiresCapped(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := d.Collection("plain")
	if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := coll.Find(context.Background(), bson.D{}, options.Find().SetCursorType(options.Tailable))
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 2 {
		t.Fatalf("want BadValue, got %v", err)
	}
}

// TestCappedPubSub: one publisher and three tailable awaitData subscribers;
// every subscriber sees every document in order.
func TestCappedPubSub(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := testenv.CreateCapped(t, d, "topic", 1<<20, 0)
	const n = 300
	// Seed one document so the tailable cursors have a position.
	if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "seq", Value: 0}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, 3)
	for s := 0; s < 3; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(200*time.Millisecond))
			if err != nil {
				errc <- err
				return
			}
			defer cur.Close(context.Background())
			next := 0
			for next <= n {
				if !cur.TryNext(ctx) {
					if cur.Err() != nil || cur.ID() == 0 {
						errc <- fmt.Errorf("subscriber %d: cursor ended at %d: %v", s, next, cur.Err())
						return
					}
					continue
				}
				got := int(cur.Current.Lookup("seq").AsInt64())
				if got != next {
					errc <- fmt.Errorf("subscriber %d: got seq %d want %d", s, got, next)
					return
				}
				next++
			}
		}()
	}
	for i := 1; i <= n; i++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "seq", Value: int64(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// TestTailableCappedPositionLost: a reader that falls behind the wrap
// gets CappedPositionLost.
func TestTailableCappedPositionLost(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := testenv.CreateCapped(t, d, "wrap", 1<<20, 3)
	for i := 0; i < 3; i++ {
		coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}})
	}
	cur, err := coll.Find(context.Background(), bson.D{}, options.Find().SetCursorType(options.Tailable).SetBatchSize(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(context.Background())
	if !cur.Next(context.Background()) {
		t.Fatal(cur.Err())
	}
	for i := 3; i < 10; i++ {
		coll.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}})
	}
	for i := 0; i < 5 && cur.Err() == nil; i++ {
		for cur.TryNext(context.Background()) {
		}
	}
	var ce mongo.ServerError
	if !errors.As(cur.Err(), &ce) || !ce.HasErrorCode(136) {
		t.Fatalf("want CappedPositionLost, got %v", cur.Err())
	}
}
