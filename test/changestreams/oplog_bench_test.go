package changestreams

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/lodedb/lode/test/testenv"
)

// BenchmarkOplogScan reads a 100k-entry oplog through find: a filter that
// matches few entries (every entry examined), and a drain of them all.
func BenchmarkOplogScan(b *testing.B) {
	_, db := testenv.Open(b)
	ctx := testenv.Ctx(b)
	testenv.InsertBatches(b, db.Collection("big"), 100000, func(i int) any { return bson.D{{Key: "_id", Value: i}, {Key: "k", Value: i % 1000}} })
	b.Run("filter", func(b *testing.B) {
		for range b.N {
			cur, err := oplogColl(db).Find(ctx, bson.D{{Key: "o.k", Value: 7}})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for cur.Next(ctx) {
				n++
			}
			if n != 100 {
				b.Fatalf("%d entries", n)
			}
		}
	})
	for _, dir := range []int{1, -1} {
		name := "drain"
		if dir < 0 {
			name = "drain-reverse"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				cur, err := oplogColl(db).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "$natural", Value: dir}}).SetBatchSize(10000))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for cur.Next(ctx) {
					n++
				}
				if n < 100000 {
					b.Fatalf("%d entries", n)
				}
			}
		})
	}
}
