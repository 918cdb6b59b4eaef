package crud_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// TestCappedPubSubWraps is capped pub/sub through many wraps: a publisher
// inserts documents at a steady pace (one per 2 ms) into a capped
// collection of at most 50 documents: 2,000 (40 wraps) under
// LODE_ACCEPTANCE=1, 600 (12 wraps) otherwise. Three tailable awaitData
// subscribers that keep up see every document in order. A subscriber that
// stops reading while the collection wraps past its position gets
// CappedPositionLost (136) on its next getMore, as in MongoDB, after
// having received only consecutive documents (never a silent skip).
func TestCappedPubSubWraps(t *testing.T) {
	t.Parallel()
	_, d := testenv.Open(t)
	coll := testenv.CreateCapped(t, d, "topic", 1<<20, 50)
	n := int64(testenv.Size(600, 2000))
	if _, err := coll.InsertOne(context.Background(), bson.D{{Key: "seq", Value: int64(0)}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var published atomic.Int64 // highest seq inserted
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	ready := make(chan struct{}, 4)
	for s := 0; s < 3; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(500*time.Millisecond))
			if err != nil {
				errc <- err
				return
			}
			defer cur.Close(context.Background())
			ready <- struct{}{}
			for next := int64(0); next <= n; {
				if !cur.TryNext(ctx) {
					if cur.Err() != nil || cur.ID() == 0 {
						errc <- fmt.Errorf("subscriber %d: cursor ended at seq %d (published %d): %v", s, next, published.Load(), cur.Err())
						return
					}
					continue
				}
				if got := cur.Current.Lookup("seq").AsInt64(); got != next {
					errc <- fmt.Errorf("subscriber %d: got seq %d want %d", s, got, next)
					return
				}
				next++
			}
		}()
	}

	// The lagging subscriber reads the first batch, then sleeps until the
	// collection has wrapped past it.
	lagErr := make(chan error, 1)
	lagRead := make(chan struct{})
	go func() {
		cur, err := coll.Find(ctx, bson.D{}, options.Find().SetCursorType(options.TailableAwait).SetBatchSize(1).SetMaxAwaitTime(100*time.Millisecond))
		if err != nil {
			lagErr <- err
			return
		}
		defer cur.Close(context.Background())
		ready <- struct{}{}
		next := int64(0)
		read := func() error {
			for cur.TryNext(ctx) {
				if got := cur.Current.Lookup("seq").AsInt64(); got != next {
					return fmt.Errorf("lagging subscriber: got seq %d want %d (skipped)", got, next)
				}
				next++
			}
			return cur.Err()
		}
		if err := read(); err != nil || next == 0 {
			lagErr <- fmt.Errorf("lagging subscriber's first read: %d docs, %v", next, err)
			return
		}
		close(lagRead)
		for published.Load() < next+200 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		for i := 0; i < 20; i++ {
			if err := read(); err != nil {
				lagErr <- err
				return
			}
		}
		lagErr <- fmt.Errorf("lagging subscriber read up to seq %d without losing its position", next)
	}()
	for i := 0; i < 4; i++ {
		<-ready
	}
	<-lagRead

	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for i := int64(1); i <= n; i++ {
		<-tick.C
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "seq", Value: i}}); err != nil {
			t.Fatal(err)
		}
		published.Store(i)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if cnt, err := coll.CountDocuments(ctx, bson.D{}); err != nil || cnt != 50 {
		t.Errorf("capped collection holds %d documents (%v), want max 50", cnt, err)
	}
	err := <-lagErr
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(136) {
		t.Fatalf("lagging subscriber: want CappedPositionLost (136), got %v", err)
	}
}
