package scenarios

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/internal/sim"
)

// batch is the preload insert batch size.
const batch = 1000

// coll returns the scenario's collection.
func coll(db *mongo.Database, p sim.Params) *mongo.Collection {
	return db.Collection(p.String("collection", "sim"))
}

// drop drops the scenario's collection unless drop=false.
func drop(ctx context.Context, c *mongo.Collection, p sim.Params) error {
	if !p.Bool("drop", true) {
		return nil
	}
	if err := c.Drop(ctx); err != nil {
		return fmt.Errorf("drop %s: %w", c.Name(), err)
	}
	return nil
}

// preload inserts n documents made by gen in unordered batches,
// reporting progress.
func preload(ctx context.Context, c *mongo.Collection, n int, gen func(i int) any, progress sim.Progress) error {
	if n <= 0 {
		return nil
	}
	progress(0, n)
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		docs := make([]any, 0, hi-lo)
		for i := lo; i < hi; i++ {
			docs = append(docs, gen(i))
		}
		if _, err := c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
			return fmt.Errorf("preload %s: %w", c.Name(), err)
		}
		progress(hi, n)
	}
	return nil
}

// dropTeardown drops the scenario's collection.
func dropTeardown(ctx context.Context, db *mongo.Database, p sim.Params) error {
	return coll(db, p).Drop(ctx)
}

// withIndexes runs create, the scenario's index creation, unless the
// parameter indexes=false asks to run without them (to let `lode sim
// --advise` find the missing indexes).
func withIndexes(p sim.Params, create func() error) error {
	if !p.Bool("indexes", true) {
		return nil
	}
	return create()
}
