package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/patterns/bucket"
)

var tickers = []string{"MDB", "GOOG", "MSFT", "AAPL", "AMZN", "ORCL"}

// trade is one item of seed 001's trade history.
func trade(i int, at time.Time) bson.D {
	typ := "buy"
	if i%3 == 0 {
		typ = "sell"
	}
	return bson.D{
		{Key: "type", Value: typ},
		{Key: "ticker", Value: tickers[i%len(tickers)]},
		{Key: "qty", Value: 1 + i%500},
		{Key: "date", Value: at},
	}
}

// bucketPreload returns how many full buckets the setup preloads: the
// `preload` parameter when set, otherwise owners x pages. Bucket i belongs
// to owner i % owners and is that owner's page i / owners + 1.
func bucketPreload(p sim.Params) int {
	owners, pages := max(p.Int("owners", 100), 1), max(p.Int("pages", 20), 0)
	return max(p.Int("preload", owners*pages), 0)
}

// bucketSetup preloads bucketPreload(p) full buckets spread round-robin
// over `owners` owners, shaped as bucket.Store writes them:
// {_id: "<owner>_<secs>", owner, count, history}.
func bucketSetup(ctx context.Context, db *mongo.Database, p sim.Params, progress sim.Progress) error {
	c := coll(db, p)
	if err := drop(ctx, c, p); err != nil {
		return err
	}
	owners, size := max(p.Int("owners", 100), 1), max(p.Int("size", bucket.DefaultSize), 1)
	base := time.Now().Add(-30 * 24 * time.Hour).Truncate(time.Second)
	return preload(ctx, c, bucketPreload(p), func(i int) any {
		owner, page := i%owners, i/owners
		first := base.Add(time.Duration(page*size) * time.Minute)
		hist := make(bson.A, size)
		for k := range hist {
			hist[k] = trade(i*size+k, first.Add(time.Duration(k)*time.Minute))
		}
		return bson.D{
			{Key: "_id", Value: fmt.Sprintf("%d_%d", owner, first.Unix())},
			{Key: "owner", Value: fmt.Sprint(owner)},
			{Key: "count", Value: size},
			{Key: "history", Value: hist},
		}
	}, progress)
}

func init() {
	defaults := sim.Params{"owners": 100, "pages": 20, "size": bucket.DefaultSize}
	sim.Register(&sim.Scenario{
		Name: "bucket_append",
		Seed: "001",
		Description: "Trades appended to per-customer buckets of `size` items, after preloading `preload` full buckets (default owners x pages). Op: bucket.Store.Append for a random owner: " +
			"the seed's updateOne({_id, count: {$lt: size}}, {$push, $inc, $setOnInsert}, {upsert: true}) on the newest bucket.",
		Defaults: defaults,
		Setup:    bucketSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			st := bucket.New(coll(db, p), bucket.WithSize(max(p.Int("size", bucket.DefaultSize), 1)))
			owners := max(p.Int("owners", 100), 1)
			return func(ctx context.Context) error {
				i := rand.IntN(1 << 30)
				return st.Append(ctx, fmt.Sprint(i%owners), trade(i, time.Now()))
			}, nil
		},
		Teardown: dropTeardown,
	})
	sim.Register(&sim.Scenario{
		Name: "bucket_page",
		Seed: "001",
		Description: "Pagination over preloaded buckets (`preload` buckets, default owners x pages). Op: bucket.Store.Page of a random preloaded owner and page: " +
			"find({_id: /^owner_/}).sort({_id: 1}).skip(page-1).limit(1) on the _id index.",
		Defaults: defaults,
		Setup:    bucketSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			st := bucket.New(coll(db, p), bucket.WithSize(max(p.Int("size", bucket.DefaultSize), 1)))
			owners, n := max(p.Int("owners", 100), 1), bucketPreload(p)
			return func(ctx context.Context) error {
				if n == 0 { // nothing preloaded: page 1 of an owner with no buckets
					_, err := st.Page(ctx, fmt.Sprint(rand.IntN(owners)), 1)
					return err
				}
				i := rand.IntN(n) // a preloaded bucket: it must be found
				owner, page := i%owners, i/owners+1
				items, err := st.Page(ctx, fmt.Sprint(owner), page)
				if err != nil {
					return err
				}
				if len(items) == 0 {
					return fmt.Errorf("bucket_page: page %d of owner %d is empty", page, owner)
				}
				return nil
			}, nil
		},
		Teardown: dropTeardown,
	})
}
