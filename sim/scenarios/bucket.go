package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/patterns/bucket"
	"github.com/lodedb/lode/sim"
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

// bucketSetup preloads `owners` owners with `pages` full buckets each,
// shaped as bucket.Store writes them: {_id: "<owner>_<secs>", owner,
// count, history}.
func bucketSetup(ctx context.Context, db *mongo.Database, p sim.Params, progress sim.Progress) error {
	c := coll(db, p)
	if err := drop(ctx, c, p); err != nil {
		return err
	}
	owners, pages, size := max(p.Int("owners", 100), 1), p.Int("pages", 20), max(p.Int("size", bucket.DefaultSize), 1)
	base := time.Now().Add(-30 * 24 * time.Hour).Truncate(time.Second)
	return preload(ctx, c, owners*pages, func(i int) any {
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
		Description: "Trades appended to per-customer buckets of `size` items. Op: bucket.Store.Append for a random owner: " +
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
		Description: "Pagination over preloaded buckets. Op: bucket.Store.Page of a random owner and page: " +
			"find({_id: /^owner_/}).sort({_id: 1}).skip(page-1).limit(1) on the _id index.",
		Defaults: defaults,
		Setup:    bucketSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			st := bucket.New(coll(db, p), bucket.WithSize(max(p.Int("size", bucket.DefaultSize), 1)))
			owners, pages := max(p.Int("owners", 100), 1), max(p.Int("pages", 20), 1)
			return func(ctx context.Context) error {
				items, err := st.Page(ctx, fmt.Sprint(rand.IntN(owners)), 1+rand.IntN(pages))
				if err != nil {
					return err
				}
				if p.Int("pages", 20) > 0 && len(items) == 0 {
					return fmt.Errorf("bucket_page: empty page")
				}
				return nil
			}, nil
		},
		Teardown: dropTeardown,
	})
}
