package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/lodedb/lode/internal/sim"
	"github.com/lodedb/lode/patterns/recent"
)

// recentSetup preloads documents {cat, ts} with ts = 0..preload-1 (the
// seed's dense counter) in `categories` categories, and the {cat: 1,
// ts: -1} index.
func recentSetup(ctx context.Context, db *mongo.Database, p sim.Params, progress sim.Progress) error {
	c := coll(db, p)
	if err := drop(ctx, c, p); err != nil {
		return err
	}
	ncat := max(p.Int("categories", 100), 1)
	err := preload(ctx, c, p.Int("preload", 100000), func(i int) any {
		return bson.D{
			{Key: "_id", Value: i},
			{Key: recent.CatField, Value: fmt.Sprintf("c%03d", rand.IntN(ncat))},
			{Key: recent.TSField, Value: int64(i)},
		}
	}, progress)
	if err != nil {
		return err
	}
	return withIndexes(p, func() error { return recent.EnsureIndexes(ctx, c) })
}

// pickCats returns k distinct random categories out of n.
func pickCats(n, k int) []any {
	k = min(k, n)
	out := make([]any, 0, k)
	for _, i := range rand.Perm(n)[:k] {
		out = append(out, fmt.Sprintf("c%03d", i))
	}
	return out
}

func init() {
	defaults := sim.Params{"preload": 100000, "categories": 100, "pick": 3, "n": 1000, "indexes": true}
	sim.Register(&sim.Scenario{
		Name: "recent_sorted",
		Seed: "000",
		Description: "Most recent n documents in `pick` random categories out of `categories`. Op: recent.Latest, " +
			"find({cat: {$in: cats}}).sort({ts: -1}).limit(n) over the {cat: 1, ts: -1} index (SORT_MERGE).",
		Users:    100,
		Defaults: defaults,
		Setup:    recentSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			c := coll(db, p)
			ncat, pick, n := max(p.Int("categories", 100), 1), p.Int("pick", 3), int64(p.Int("n", 1000))
			return func(ctx context.Context) error {
				docs, err := recent.Latest(ctx, c, recent.CatField, pickCats(ncat, pick), n)
				if err != nil {
					return err
				}
				if int64(len(docs)) > n {
					return fmt.Errorf("recent_sorted: %d documents, limit %d", len(docs), n)
				}
				return nil
			}, nil
		},
		Teardown: dropTeardown,
	})
	sim.Register(&sim.Scenario{
		Name: "recent_iterative",
		Seed: "000",
		Description: "The seed's iterative findRecent(min, max) with min = 0.9n and max = 1.1n. Op: recent.FindRecent " +
			"(threshold search by covered counts with hint {cat: 1, ts: -1}) and reading every returned document.",
		Users:    100,
		Defaults: defaults,
		Setup:    recentSetup,
		Bind: func(ctx context.Context, db *mongo.Database, p sim.Params) (sim.Op, error) {
			c := coll(db, p)
			ncat, pick, n := max(p.Int("categories", 100), 1), p.Int("pick", 3), int64(p.Int("n", 1000))
			lo, hi := n*9/10, n*11/10
			return func(ctx context.Context) error {
				cur, err := recent.FindRecent(ctx, c, pickCats(ncat, pick), lo, hi)
				if err != nil {
					return err
				}
				defer cur.Close(ctx)
				var got int64
				for cur.Next(ctx) {
					got++
				}
				if err := cur.Err(); err != nil {
					return err
				}
				if got > hi {
					return fmt.Errorf("recent_iterative: %d documents, want at most %d", got, hi)
				}
				return nil
			}, nil
		},
		Teardown: dropTeardown,
	})
}
