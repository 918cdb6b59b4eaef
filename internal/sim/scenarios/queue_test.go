package scenarios

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/sim"
)

// TestFetchEmptyQueue: a fetch finding the queue empty is a successful
// poll once every preloaded job was claimed, and an error before that
// (the claim missed jobs the preload guarantees).
func TestFetchEmptyQueue(t *testing.T) {
	ctx := context.Background()
	ldb, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ldb.Close()
	for _, name := range []string{"fetch_from_queue_by_fifo", "fetch_from_queue_by_priority"} {
		sc, err := sim.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		p := sc.Defaults.Merge(sim.Params{"preload": 3, "collection": "q_" + name})
		db := ldb.Client().Database("sim")
		if err := sc.Setup(ctx, db, p, func(int, int) {}); err != nil {
			t.Fatal(err)
		}
		op, err := sc.Bind(ctx, db, p)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if err := op(ctx); err != nil {
				t.Fatalf("%s: claim %d: %v", name, i+1, err)
			}
		}
		if err := op(ctx); err != nil {
			t.Fatalf("%s: empty poll after all 3 jobs were claimed: %v", name, err)
		}
		// A fresh setup whose jobs vanish: the first empty poll is an error.
		if err := sc.Setup(ctx, db, p, func(int, int) {}); err != nil {
			t.Fatal(err)
		}
		op, err = sc.Bind(ctx, db, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Collection("q_"+name).DeleteMany(ctx, bson.D{}); err != nil {
			t.Fatal(err)
		}
		if err := op(ctx); err == nil || !strings.Contains(err.Error(), "after 0 of 3 preloaded jobs") {
			t.Fatalf("%s: empty queue with 3 preloaded jobs unclaimed: err = %v", name, err)
		}
	}
}
