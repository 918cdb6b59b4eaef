package scenarios

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/lodedb/lode"
	"github.com/lodedb/lode/internal/sim"
)

// TestBucketPreload: the bucket scenarios preload `preload` buckets when
// it is set (owners x pages otherwise), and bucket_page only asks for
// pages that were preloaded.
func TestBucketPreload(t *testing.T) {
	ctx := context.Background()
	ldb, err := lode.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ldb.Close()
	db := ldb.Client().Database("sim")
	tests := []struct {
		scenario string
		params   sim.Params
		want     int64
	}{
		{"bucket_page", sim.Params{"preload": 7, "owners": 3}, 7},
		{"bucket_page", sim.Params{"owners": 4, "pages": 2}, 8},
		{"bucket_append", sim.Params{"preload": 0}, 0},
		{"bucket_append", sim.Params{"preload": 5, "owners": 10}, 5},
	}
	for _, tc := range tests {
		sc, err := sim.Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		p := sc.Defaults.Merge(tc.params)
		if err := sc.Setup(ctx, db, p, func(int, int) {}); err != nil {
			t.Fatal(err)
		}
		n, err := coll(db, p).CountDocuments(ctx, bson.D{})
		if err != nil || n != tc.want {
			t.Fatalf("%s %v: %d buckets preloaded (%v), want %d", tc.scenario, tc.params, n, err, tc.want)
		}
		op, err := sc.Bind(ctx, db, p)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 30; i++ {
			if err := op(ctx); err != nil {
				t.Fatalf("%s %v: op %d: %v", tc.scenario, tc.params, i, err)
			}
		}
	}
}
